//! End-to-end: the `workspace` MCP toolset. The real binary (`sextant serve --toolsets
//! core,workspace`) over stdio pipes, driven by raw JSON-RPC lines: a second, unindexed
//! repository is watched, an edit to it becomes visible to `search` with `repo`, and after
//! `unwatch` a further edit is not picked up; named workspaces are created, refreshed with pushed
//! texts and from the working tree, and answer the read tools given `workspace`, isolated from
//! each other and from the committed view.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common;
use common::{Fixture, bin, fixture, git, write};

/// How long a watched edit may take to become visible.
const VISIBLE_WITHIN: Duration = Duration::from_secs(30);

/// A server over stdio; stdout lines are read on a thread so a missing reply fails the test.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    next_id: i64,
}

impl Server {
    fn start(f: &Fixture, extra: &[&str]) -> (Server, Value) {
        let mut child = Command::new(bin())
            .arg("serve")
            .arg("--repo")
            .arg(&f.repo)
            .args(extra)
            .env("SEXTANT_HOME", &f.home)
            .env_remove("SEXTANT_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let stdin = child.stdin.take();
        let mut s = Server {
            child,
            stdin,
            lines: rx,
            next_id: 1,
        };
        let init = s.request(
            "initialize",
            json!({"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "workspace-test", "version": "1"}}),
        );
        s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        (s, init)
    }

    fn send(&mut self, msg: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(msg.to_string().as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no reply to {method} (id {id})"));
            let v: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("not JSON on stdout ({e}): {line:?}"));
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let r = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        assert!(r.get("error").is_none(), "{tool}: {r}");
        r["result"].clone()
    }

    /// `(data, meta)` of a successful call; its text mirror is the same JSON.
    fn ok(&mut self, tool: &str, arguments: Value) -> (Value, Value) {
        let r = self.call(tool, arguments.clone());
        assert_ne!(r["isError"], true, "{tool} {arguments}: {r}");
        let s = r["structuredContent"].clone();
        let mirror: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap())
            .unwrap_or_else(|e| panic!("{tool}: the text is not JSON ({e})"));
        assert_eq!(mirror, s, "{tool}");
        assert!(s["meta"]["result_bytes"].as_u64().unwrap() > 0, "{s}");
        (s["data"].clone(), s["meta"].clone())
    }

    /// The error text of a call that failed as a tool error.
    fn err(&mut self, tool: &str, arguments: Value) -> String {
        let r = self.call(tool, arguments.clone());
        assert_eq!(r["isError"], true, "{tool} {arguments}: {r}");
        r["content"][0]["text"].as_str().unwrap().to_string()
    }

    /// The watched entry for `root`, if any.
    fn watched(&mut self, root: &Path) -> Option<Value> {
        let (data, _) = self.ok("watched", json!({}));
        let list = data["repositories"].as_array().unwrap();
        assert_eq!(data["count"], json!(list.len()), "{data}");
        list.iter()
            .find(|w| w["root"] == json!(root.display().to_string()))
            .cloned()
    }

    /// Polls `f` until it yields, failing after `VISIBLE_WITHIN`.
    fn poll<T>(&mut self, what: &str, mut f: impl FnMut(&mut Server) -> Option<T>) -> T {
        let deadline = Instant::now() + VISIBLE_WITHIN;
        loop {
            if let Some(v) = f(self) {
                return v;
            }
            assert!(
                Instant::now() < deadline,
                "timed out after {VISIBLE_WITHIN:?} waiting for {what}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Results of `search` for `name` in `repo`.
    fn search(&mut self, repo: &Path, name: &str) -> Vec<Value> {
        let (data, _) = self.ok(
            "search",
            json!({"query": name, "repo": repo.display().to_string(), "mode": "compact"}),
        );
        data["results"].as_array().unwrap().clone()
    }

    fn close(mut self) {
        drop(self.stdin.take());
        for _ in 0..100 {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "{status}");
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.child.kill();
        panic!("the server did not exit within 5 s of stdin closing");
    }
}

/// A second repository, committed, not indexed.
fn other_repo(dir: &Path) -> PathBuf {
    let repo = dir.join("billing");
    std::fs::create_dir_all(&repo).unwrap();
    write(
        &repo,
        "billing/invoice.py",
        "def total(items):\n    return sum(items)\n",
    );
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "init"]);
    repo.canonicalize().unwrap()
}

#[test]
fn watch_a_second_repository_then_unwatch_it() {
    let f = fixture(true);
    let b = other_repo(&f.scratch);
    let b_arg = b.display().to_string();
    let (mut s, init) = Server::start(&f, &["--no-watch", "--toolsets", "core,workspace"]);
    let instructions = init["result"]["instructions"].as_str().unwrap();
    assert!(instructions.contains("`watch`"), "{instructions}");

    let listed = s.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    for t in ["watch", "unwatch", "watched", "search", "status"] {
        assert!(names.contains(&t), "{t} not listed: {names:?}");
    }
    assert_eq!(names.len(), 21, "{names:?}");
    for t in tools
        .iter()
        .filter(|t| ["watch", "unwatch", "watched"].contains(&t["name"].as_str().unwrap()))
    {
        assert!(t["outputSchema"].is_object(), "{t}");
    }

    // --no-watch: nothing is watched.
    let (data, meta) = s.ok("watched", json!({}));
    assert_eq!(data, json!({"count": 0, "repositories": []}), "{data}");
    assert_eq!(meta["repository"], json!(f.repo.display().to_string()));
    assert!(meta["generation"].as_i64().unwrap() >= 1, "{meta}");

    // B is not indexed: tools refuse it until the watcher's first run publishes.
    let e = s.err("status", json!({"repo": b_arg}));
    assert!(e.contains("not an indexed repository"), "{e}");

    let (data, meta) = s.ok("watch", json!({"repo": b_arg}));
    assert_eq!(data["already_watching"], false, "{data}");
    let w = &data["watch"];
    assert_eq!(w["root"], json!(b_arg), "{w}");
    assert_eq!(w["default"], false, "{w}");
    assert!(w["started_at"].as_i64().unwrap() > 1_600_000_000, "{w}");
    assert!(!w["id"].as_str().unwrap().is_empty(), "{w}");
    assert_eq!(meta["repository"], json!(b_arg), "{meta}");
    // Idempotent: watching again returns the status.
    let (again, _) = s.ok("watch", json!({"repo": b_arg}));
    assert_eq!(again["already_watching"], true, "{again}");
    assert_eq!(again["watch"]["started_at"], w["started_at"], "{again}");

    // The first run indexes B.
    let first = s.poll("B's first index run", |s| {
        s.watched(&b)
            .filter(|w| w["runs"].as_u64() >= Some(1) && w["state"] == "idle")
    });
    assert_eq!(first["last_trigger"], "initial", "{first}");
    assert!(first.get("last_error").is_none(), "{first}");
    let initial = first["last_generation"].as_i64().unwrap();
    let (status, _) = s.ok("status", json!({"repo": b_arg}));
    assert_eq!(status["generation"], json!(initial), "{status}");
    assert!(s.search(&b, "fresh_after_watch").is_empty());

    // An edit to B becomes visible to `search` with repo = B.
    write(
        &b,
        "billing/invoice.py",
        "def total(items):\n    return sum(items)\n\n\ndef fresh_after_watch():\n    return total([1])\n",
    );
    let hits = s.poll("the edit to be visible", |s| {
        let hits = s.search(&b, "fresh_after_watch");
        (!hits.is_empty()).then_some(hits)
    });
    assert_eq!(hits[0]["symbol"]["path"], "billing/invoice.py", "{hits:?}");
    let w = s.poll("the watcher to settle", |s| {
        s.watched(&b).filter(|w| w["state"] == "idle")
    });
    assert!(w["last_generation"].as_i64().unwrap() > initial, "{w}");
    assert!(w["runs"].as_u64().unwrap() >= 2, "{w}");
    assert_ne!(w["last_trigger"], "initial", "{w}");
    assert!(w["last_changed_paths"].as_u64().unwrap() >= 1, "{w}");
    assert!(w["last_latency_ms"].as_f64().unwrap() > 0.0, "{w}");
    assert!(w["last_indexed_at"].as_i64().is_some(), "{w}");
    let watched_generation = w["last_generation"].as_i64().unwrap();

    // Unwatch: returns at once; later edits are not picked up.
    let started = Instant::now();
    let (data, _) = s.ok("unwatch", json!({"repo": b_arg}));
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(data["unwatched"]["root"], json!(b_arg), "{data}");
    assert!(s.watched(&b).is_none());
    let (data, _) = s.ok("watched", json!({}));
    assert_eq!(data["count"], 0, "{data}");
    write(
        &b,
        "billing/invoice.py",
        "def total(items):\n    return sum(items)\n\n\ndef after_unwatch():\n    return 0\n",
    );
    // Several debounce periods (100 ms) and status cache lifetimes (1 s).
    std::thread::sleep(Duration::from_millis(2500));
    assert!(s.search(&b, "after_unwatch").is_empty());
    assert!(!s.search(&b, "fresh_after_watch").is_empty());
    let (status, _) = s.ok("status", json!({"repo": b_arg}));
    assert_eq!(status["generation"], json!(watched_generation), "{status}");

    // Unwatching again says it is not watched.
    let e = s.err("unwatch", json!({"repo": b_arg}));
    assert!(e.contains("is not watched"), "{e}");
    assert!(e.contains("watched: none"), "{e}");
    // The server's own repository is not watched either (--no-watch).
    let e = s.err("unwatch", json!({}));
    assert!(e.contains("is not watched"), "{e}");

    // A file is not a repository.
    let file = b.join("billing/invoice.py");
    let e = s.err("watch", json!({"repo": file.display().to_string()}));
    assert!(e.starts_with("argument `repo`"), "{e}");
    assert!(e.contains("not a directory"), "{e}");
    let e = s.err(
        "watch",
        json!({"repo": f.scratch.join("missing").display().to_string()}),
    );
    assert!(e.starts_with("argument `repo`"), "{e}");
    let e = s.err("watch", json!({"repo": 3}));
    assert!(e.contains("repo"), "{e}");
    s.close();
}

#[test]
fn the_served_repository_is_listed_when_serve_watches_it() {
    let f = fixture(true);
    let root = f.repo.display().to_string();
    let (mut s, _) = Server::start(&f, &["--toolsets", "core,workspace"]);
    let (data, _) = s.ok("watched", json!({}));
    assert_eq!(data["count"], 1, "{data}");
    let w = &data["repositories"][0];
    assert_eq!(w["root"], json!(root), "{w}");
    assert_eq!(w["default"], true, "{w}");
    // Watching it again is a no-op that reports its status.
    let (again, _) = s.ok("watch", json!({}));
    assert_eq!(again["already_watching"], true, "{again}");
    assert_eq!(again["watch"]["default"], true, "{again}");
    let settled = s.poll("the initial run", |s| {
        s.watched(&f.repo)
            .filter(|w| w["runs"].as_u64() >= Some(1) && w["state"] == "idle")
    });
    assert_eq!(settled["last_trigger"], "initial", "{settled}");
    s.close();
}

#[test]
fn named_workspaces_answer_the_read_tools_in_isolation() {
    let f = fixture(true);
    let (mut s, init) = Server::start(&f, &["--no-watch", "--toolsets", "core,workspace"]);
    let instructions = init["result"]["instructions"].as_str().unwrap();
    assert!(
        instructions.contains("`workspace_create`"),
        "{instructions}"
    );

    let (data, meta) = s.ok("workspace_create", json!({"workspace": "alice"}));
    assert_eq!(data["created"], true, "{data}");
    assert_eq!(data["current_revision"], 0, "{data}");
    let base = data["base_commit"].as_str().unwrap().to_string();
    assert_eq!(base.len(), 40, "{data}");
    assert_eq!(meta["workspace"], "alice", "{meta}");
    let (again, _) = s.ok("workspace_create", json!({"workspace": "alice"}));
    assert_eq!(again["created"], false, "{again}");
    s.ok("workspace_create", json!({"workspace": "bob"}));

    // Alice pushes a text that is nowhere on disk.
    let users = std::fs::read_to_string(f.repo.join("shop/users.py")).unwrap();
    let alice_users = format!("{users}\n\ndef alice_helper():\n    return create_store()\n");
    let (data, meta) = s.ok(
        "workspace_refresh",
        json!({"workspace": "alice", "files": [{"path": "shop/users.py", "content": alice_users}]}),
    );
    assert_eq!(data["files_reindexed"], 1, "{data}");
    assert_eq!(data["new_revision"], 1, "{data}");
    assert_eq!(data["source"], "contents", "{data}");
    assert!(data["symbols_updated"].as_u64().unwrap() >= 5, "{data}");
    assert_eq!(meta["revision"], 1, "{meta}");
    // Bob deletes api.py in his workspace.
    let (data, _) = s.ok(
        "workspace_refresh",
        json!({"workspace": "bob", "files": [{"path": "shop/api.py", "content": null}]}),
    );
    assert_eq!(data["changed"], json!(["shop/api.py"]), "{data}");

    let hits = |s: &mut Server, args: Value| -> Vec<String> {
        let (data, _) = s.ok("search", args);
        data["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|h| h["match"] == "exact")
            .map(|h| h["symbol"]["qualified_name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        hits(
            &mut s,
            json!({"query": "alice_helper", "workspace": "alice"})
        ),
        vec!["shop.users.alice_helper"]
    );
    assert!(hits(&mut s, json!({"query": "alice_helper", "workspace": "bob"})).is_empty());
    assert!(hits(&mut s, json!({"query": "alice_helper"})).is_empty());
    assert!(
        hits(
            &mut s,
            json!({"query": "alice_helper", "consistency": "committed"})
        )
        .is_empty()
    );
    assert_eq!(
        hits(&mut s, json!({"query": "handler", "workspace": "alice"})).len(),
        1
    );
    assert!(hits(&mut s, json!({"query": "handler", "workspace": "bob"})).is_empty());

    // Meta says which view answered.
    let (_, meta) = s.ok(
        "search",
        json!({"query": "create_store", "workspace": "alice"}),
    );
    assert_eq!(meta["workspace"], "alice", "{meta}");
    assert_eq!(meta["revision"], 1, "{meta}");
    assert_eq!(meta["consistency"], "workspace", "{meta}");
    assert_eq!(meta["baseline_commit"], json!(base), "{meta}");
    // The call graph and the source follow the workspace.
    let (data, _) = s.ok(
        "calls",
        json!({"symbol": "shop.users.create_store", "workspace": "alice", "depth": 1}),
    );
    let callers: Vec<&str> = data["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|st| st["symbol"]["qualified_name"].as_str().unwrap())
        .collect();
    assert!(callers.contains(&"shop.users.alice_helper"), "{data}");
    let (data, _) = s.ok(
        "source",
        json!({"symbol": "shop.users.alice_helper", "workspace": "alice"}),
    );
    assert!(
        data["text"].as_str().unwrap().contains("def alice_helper"),
        "{data}"
    );
    let (data, _) = s.ok(
        "symbol",
        json!({"symbol": "shop.users.alice_helper", "workspace": "alice"}),
    );
    assert_eq!(data["symbol"]["path"], "shop/users.py", "{data}");
    let (data, _) = s.ok(
        "references",
        json!({"symbol": "shop.users.create_store", "workspace": "alice"}),
    );
    assert!(data["total"].as_u64().unwrap() >= 3, "{data}");

    // Virtual files: the source of this call only.
    let (data, meta) = s.ok(
        "source",
        json!({"symbol": "shop.users.create_store", "consistency": "ephemeral",
               "virtual_files": [{"path": "shop/users.py", "content": users.replace("return UserStore()", "return UserStore()  # unsaved")}]}),
    );
    assert!(
        data["text"].as_str().unwrap().contains("# unsaved"),
        "{data}"
    );
    assert_eq!(meta["virtual_files"], json!(["shop/users.py"]), "{meta}");
    let (data, _) = s.ok("source", json!({"symbol": "shop.users.create_store"}));
    assert!(
        !data["text"].as_str().unwrap().contains("# unsaved"),
        "{data}"
    );

    // Argument errors name the argument.
    let e = s.err("search", json!({"query": "x", "consistency": "ephemeral"}));
    assert!(e.starts_with("argument `consistency`"), "{e}");
    let e = s.err(
        "search",
        json!({"query": "x", "consistency": "committed", "virtual_files": [{"path": "a.py", "content": ""}]}),
    );
    assert!(e.starts_with("argument `virtual_files`"), "{e}");
    let e = s.err("search", json!({"query": "x", "workspace": "no such"}));
    assert!(e.starts_with("argument `workspace`"), "{e}");
    let e = s.err("search", json!({"query": "x", "workspace": "carol"}));
    assert!(e.contains("no workspace named"), "{e}");
    let e = s.err("search", json!({"query": "x", "consistency": "sometimes"}));
    assert!(e.contains("consistency"), "{e}");

    // Auto-detection from the working tree; the edit becomes pending after the refresh.
    write(
        &f.repo,
        "shop/models.py",
        "class Base:\n    def save(self):\n        return 1\n\n\ndef from_disk():\n    pass\n",
    );
    let (data, _) = s.ok("workspace_refresh", json!({"workspace": "alice"}));
    assert_eq!(data["source"], "working_tree", "{data}");
    assert_eq!(data["new_revision"], 2, "{data}");
    assert!(
        data["changed"]
            .as_array()
            .unwrap()
            .contains(&json!("shop/models.py")),
        "{data}"
    );
    write(&f.repo, "shop/models.py", "class Base:\n    pass\n");
    let (_, meta) = s.ok(
        "search",
        json!({"query": "from_disk", "workspace": "alice"}),
    );
    assert_eq!(meta["pending_sync"], json!(["shop/models.py"]), "{meta}");

    let (data, _) = s.ok("workspace_list", json!({}));
    assert_eq!(data["count"], 2, "{data}");
    assert_eq!(data["workspaces"][0]["workspace"], "alice", "{data}");
    assert_eq!(data["workspaces"][0]["revision"], 2, "{data}");
    assert_eq!(data["workspaces"][0]["is_stale"], false, "{data}");
    assert_eq!(data["current_commit"], json!(base), "{data}");
    let (data, _) = s.ok("workspace_reset", json!({"workspace": "alice"}));
    assert_eq!(data["previous_revision"], 2, "{data}");
    assert!(
        hits(
            &mut s,
            json!({"query": "alice_helper", "workspace": "alice"})
        )
        .is_empty()
    );
    let (data, _) = s.ok("workspace_delete", json!({"workspace": "bob"}));
    assert_eq!(data["deleted"], true, "{data}");
    let (data, _) = s.ok("workspace_delete", json!({"workspace": "bob"}));
    assert_eq!(data["deleted"], false, "{data}");
    s.close();
}
