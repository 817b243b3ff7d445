//! End-to-end: the `analytics` MCP toolset. The real binary (`sextant serve --toolsets
//! core,analytics --no-watch`) over stdio pipes, driven by raw JSON-RPC lines, on a small
//! committed Python repository indexed by `sextant index`; every analytics tool is called and
//! its structured answer checked. The Python `mcp` SDK client then validates every analytics
//! answer against its output schema (tests/mcp_python/test_client.py `--toolsets`).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::common;
use common::{bin, git, write};

struct Repo {
    _tmp: tempfile::TempDir,
    repo: PathBuf,
    home: PathBuf,
}

/// The repository of the CLI analytics tests: a route calling into a store, a file cycle
/// (api ↔ hooks), a private function nothing uses, a test.
fn repo() -> Repo {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("shop");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&repo).unwrap();
    write(&repo, "shop/__init__.py", "");
    write(
        &repo,
        "shop/store.py",
        "class Store:\n    def get(self, key):\n        return self._load(key)\n\n    def _load(self, key):\n        if key and key != 0:\n            return key\n        return None\n\n\ndef _forgotten():\n    return 0\n",
    );
    write(
        &repo,
        "shop/api.py",
        "from shop.store import Store\nfrom shop import hooks\n\n\ndef fetch(key):\n    hooks.before(key)\n    return Store().get(key)\n\n\n@app.route(\"/items\")\ndef items(request):\n    return fetch(request)\n",
    );
    write(
        &repo,
        "shop/hooks.py",
        "from shop import api\n\n\ndef before(key):\n    if key == 'again':\n        api.fetch(None)\n",
    );
    write(
        &repo,
        "tests/test_api.py",
        "from shop.api import fetch\n\n\ndef test_fetch():\n    assert fetch(1) == 1\n",
    );
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "init"]);
    let repo = repo.canonicalize().unwrap();
    let out = Command::new(bin())
        .args(["index", "--json"])
        .arg(&repo)
        .env("SEXTANT_HOME", &home)
        .env_remove("SEXTANT_LOG")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Repo {
        _tmp: tmp,
        repo,
        home,
    }
}

/// A server over stdio; stdout lines are read on a thread so a missing reply fails the test.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    next_id: i64,
}

impl Server {
    fn start(r: &Repo, extra: &[&str]) -> (Server, Value) {
        let mut child = Command::new(bin())
            .arg("serve")
            .arg("--repo")
            .arg(&r.repo)
            .arg("--no-watch")
            .args(extra)
            .env("SEXTANT_HOME", &r.home)
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
                   "clientInfo": {"name": "analytics-test", "version": "1"}}),
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

    /// Sends a request and returns the whole reply.
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

    /// The `result` of a `tools/call`.
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
        let meta = s["meta"].clone();
        assert!(meta["generation"].as_i64().unwrap() >= 1, "{meta}");
        assert_eq!(meta["stale"], false, "{meta}");
        assert!(meta["result_bytes"].as_u64().unwrap() > 0, "{meta}");
        (s["data"].clone(), meta)
    }

    /// The error text of a call that failed as a tool error.
    fn err(&mut self, tool: &str, arguments: Value) -> String {
        let r = self.call(tool, arguments.clone());
        assert_eq!(r["isError"], true, "{tool} {arguments}: {r}");
        r["content"][0]["text"].as_str().unwrap().to_string()
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

const ANALYTICS: &[&str] = &[
    "architecture",
    "bridges",
    "central",
    "communities",
    "complexity",
    "cycles",
    "dead_code",
    "entry_points",
    "flows",
    "query",
    "schema",
];

fn qnames(list: &Value, field: &str) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|v| v[field]["qualified_name"].as_str().unwrap().to_string())
        .collect()
}

fn type_arrays(v: &Value) -> bool {
    match v {
        Value::Object(m) => {
            m.get("type").is_some_and(Value::is_array) || m.values().any(type_arrays)
        }
        Value::Array(a) => a.iter().any(type_arrays),
        _ => false,
    }
}

#[test]
fn default_toolset_lists_core_only_and_refuses_analytics() {
    let r = repo();
    let (mut s, init) = Server::start(&r, &[]);
    assert!(
        !init["result"]["instructions"]
            .as_str()
            .unwrap()
            .contains("Cypher"),
        "{init}"
    );
    let listed = s.request("tools/list", json!({}));
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 13, "{names:?}");
    assert!(!names.iter().any(|n| ANALYTICS.contains(n)), "{names:?}");
    let refused = s.request(
        "tools/call",
        json!({"name": "query", "arguments": {"query": "MATCH (n) RETURN n"}}),
    );
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    s.close();
    // An unknown or unbuilt toolset stops the server with a message.
    let out = Command::new(bin())
        .args(["serve", "--toolsets", "core,history", "--repo"])
        .arg(&r.repo)
        .env("SEXTANT_HOME", &r.home)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("not available"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn analytics_tools_over_stdio() {
    let r = repo();
    let (mut s, init) = Server::start(&r, &["--toolsets", "core,analytics"]);
    assert!(
        init["result"]["instructions"]
            .as_str()
            .unwrap()
            .contains("Cypher"),
        "{init}"
    );

    // tools/list: core and analytics, each with an output schema and a short description.
    let listed = s.request("tools/list", json!({}));
    let tools = listed["result"]["tools"].as_array().unwrap().clone();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names.len(), 13 + ANALYTICS.len(), "{names:?}");
    for t in &tools {
        let name = t["name"].as_str().unwrap();
        if !ANALYTICS.contains(&name) {
            continue;
        }
        assert_eq!(t["inputSchema"]["type"], "object", "{name}");
        assert!(
            t["inputSchema"]["properties"]["repo"].is_object(),
            "{name} takes repo"
        );
        assert!(!type_arrays(&t["inputSchema"]), "{name}: type arrays");
        assert_eq!(t["outputSchema"]["type"], "object", "{name}");
        assert_eq!(t["annotations"]["readOnlyHint"], true, "{name}");
        let d = t["description"].as_str().unwrap();
        assert!(d.len() > 40 && d.len() < 300, "{name}: {} bytes", d.len());
    }
    for a in ANALYTICS {
        assert!(names.contains(a), "{a} not listed: {names:?}");
    }
    // `all` lists the same tools and the workspace toolset's `watch`, `unwatch`, `watched` and
    // five `workspace_*` tools.
    let (mut every, _) = Server::start(&r, &["--toolsets", "all"]);
    let all = every.request("tools/list", json!({}));
    assert_eq!(
        all["result"]["tools"].as_array().unwrap().len(),
        tools.len() + 8
    );
    every.close();

    // query: rows, parameters, row and byte caps.
    let (q, meta) = s.ok(
        "query",
        json!({"query": "MATCH (f:Function)-[:CALLS]->(g) RETURN f.name, g.name ORDER BY f.name, g.name LIMIT 5"}),
    );
    assert_eq!(q["columns"], json!(["f.name", "g.name"]), "{q:#}");
    assert_eq!(
        q["rows"],
        json!([
            ["before", "fetch"],
            ["fetch", "before"],
            ["fetch", "get"],
            ["items", "fetch"],
            ["test_fetch", "fetch"]
        ]),
        "{q:#}"
    );
    assert_eq!(q["row_count"], 5);
    assert_eq!(meta["truncated"], false, "{meta}");
    let (q, _) = s.ok(
        "query",
        json!({"query": "MATCH (f:Function)-[:CALLS]->(g) RETURN f.name, g.name ORDER BY f.name LIMIT 5"}),
    );
    assert_eq!(q["rows"].as_array().unwrap().len(), 5);
    assert_eq!(q["rows"][0], json!(["before", "fetch"]));
    let (q, _) = s.ok(
        "query",
        json!({"query": "MATCH (f:Function) WHERE f.name IN $names RETURN f.qualified_name AS q ORDER BY q",
               "params": {"names": ["fetch", "before", "nothing"]}}),
    );
    assert_eq!(
        q["rows"],
        json!([["shop.api.fetch"], ["shop.hooks.before"]]),
        "{q:#}"
    );
    let (q, meta) = s.ok(
        "query",
        json!({"query": "MATCH (n) RETURN n.name", "max_rows": 2}),
    );
    assert_eq!(q["rows"].as_array().unwrap().len(), 2);
    assert_eq!(q["max_rows_reached"], true);
    assert_eq!(meta["truncated"], true);
    assert!(meta["hint"].as_str().unwrap().contains("LIMIT"), "{meta}");
    // Whole nodes past max_output_bytes: whole rows kept, the rest described, valid JSON.
    let (q, meta) = s.ok(
        "query",
        json!({"query": "MATCH (n) RETURN n", "max_output_bytes": 300}),
    );
    let t = &q["output_truncated"];
    let kept = t["rows_kept"].as_u64().unwrap();
    assert!(kept < t["rows_total"].as_u64().unwrap(), "{q:#}");
    assert_eq!(q["rows"].as_array().unwrap().len() as u64, kept);
    assert!(t["bytes"].as_u64().unwrap() > 300);
    assert_eq!(t["max_output_bytes"], 300);
    assert!(
        serde_json::to_string(&q["rows"]).unwrap().len() <= 300,
        "{q:#}"
    );
    assert_eq!(meta["truncated"], true);
    assert!(
        meta["hint"].as_str().unwrap().contains("rows kept"),
        "{meta}"
    );
    // Caps are clamped and say so.
    let (_, meta) = s.ok(
        "query",
        json!({"query": "MATCH (n) RETURN count(n)", "max_rows": 50000, "max_output_bytes": 5000000}),
    );
    let applied = meta["limits_applied"].to_string();
    assert!(
        applied.contains("max_rows") && applied.contains("max_output_bytes"),
        "{meta}"
    );
    // Errors: position and caret, the clause, what to do.
    let e = s.err("query", json!({"query": "MATCH (n:Function RETURN n"}));
    assert!(
        e.starts_with("argument `query`: Cypher syntax error"),
        "{e}"
    );
    assert!(e.contains("in the MATCH clause"), "{e}");
    assert!(e.contains("line 1, column"), "{e}");
    assert!(e.contains("MATCH (n:Function RETURN n\n"), "{e}");
    assert!(e.contains('^'), "{e}");
    let e = s.err("query", json!({"query": "MATCH (n)\nCREATE (m)\nRETURN n"}));
    assert!(e.contains("read-only: CREATE is not supported"), "{e}");
    assert!(
        e.contains("Cypher unsupported feature in the CREATE clause"),
        "{e}"
    );
    assert!(e.contains("line 2, column 1"), "{e}");
    let e = s.err("query", json!({"query": "MATCH (n:Galaxy) RETURN n"}));
    assert!(
        e.contains("Cypher unknown name in the MATCH clause") && e.contains("`schema`"),
        "{e}"
    );
    let e = s.err(
        "query",
        json!({"query": "MATCH (n {name: $x}) RETURN n", "params": {"x": {"a": 1}}}),
    );
    assert!(e.starts_with("argument `params`: parameter $x"), "{e}");
    let e = s.err("query", json!({"query": "MATCH (n {name: $x}) RETURN n"}));
    assert!(e.contains("$x"), "{e}");
    let e = s.err("query", json!({"query": "  "}));
    assert!(e.contains("`query`"), "{e}");
    let e = s.err(
        "query",
        json!({"query": "MATCH (n) RETURN n", "max_rows": "ten"}),
    );
    assert!(e.contains("`max_rows`"), "{e}");

    // schema
    let (sc, _) = s.ok("schema", json!({}));
    let labels: Vec<&str> = sc["node_labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert!(
        labels.contains(&"Function") && labels.contains(&"Class"),
        "{sc:#}"
    );
    let calls = sc["relationship_types"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "CALLS")
        .expect("CALLS");
    assert!(calls["count"].as_u64().unwrap() >= 5, "{calls}");
    assert!(
        sc["node_properties"]
            .as_array()
            .unwrap()
            .contains(&json!("qualified_name")),
        "{sc:#}"
    );
    assert!(!sc["examples"].as_array().unwrap().is_empty());

    // central: ranked, paged with a cursor, kinds checked.
    let (c, _) = s.ok("central", json!({"limit": 3}));
    assert_eq!(
        c["results"][0]["node"]["qualified_name"], "shop.api.fetch",
        "{c:#}"
    );
    assert!(
        c["results"][0]["node"]["id"]
            .as_str()
            .unwrap()
            .starts_with("sym_")
    );
    assert_eq!(c["results"].as_array().unwrap().len(), 3);
    let (p1, meta) = s.ok("central", json!({"limit": 1}));
    let cursor = meta["next_cursor"]
        .as_str()
        .expect("next_cursor")
        .to_string();
    assert_eq!(meta["truncated"], true);
    let (p2, _) = s.ok("central", json!({"limit": 1, "cursor": cursor}));
    assert_eq!(p1["results"][0], c["results"][0]);
    assert_eq!(p2["results"][0], c["results"][1]);
    assert_eq!(p2["results"][0]["rank"], 2);
    let (classes, _) = s.ok("central", json!({"kind": ["class"]}));
    assert_eq!(
        qnames(&classes["results"], "node"),
        vec!["shop.store.Store"]
    );
    let e = s.err("central", json!({"kind": ["galaxy"]}));
    assert!(e.contains("argument `kind`"), "{e}");
    let e = s.err("central", json!({"cursor": "c1.1.1.0"}));
    assert!(e.contains("cursor"), "{e}");

    // bridges, communities
    let (b, _) = s.ok("bridges", json!({}));
    assert_eq!(b["exact"], true);
    assert_eq!(b["results"][0]["node"]["qualified_name"], "shop.api.fetch");
    let (com, _) = s.ok("communities", json!({"min_size": 1}));
    assert!(com["count"].as_u64().unwrap() >= 1, "{com:#}");
    let first = &com["communities"][0];
    assert_eq!(first["id"], 0);
    assert!(first["label"].as_str().is_some());
    assert!(!first["top_members"].as_array().unwrap().is_empty());

    // cycles at each level
    let (files, _) = s.ok("cycles", json!({}));
    assert_eq!(files["level"], "file");
    assert_eq!(files["count"], 1);
    assert_eq!(
        files["cycles"][0]["members"],
        json!(["shop/api.py", "shop/hooks.py"])
    );
    let (functions, _) = s.ok("cycles", json!({"level": "function"}));
    assert_eq!(
        functions["cycles"][0]["members"],
        json!(["shop.api.fetch", "shop.hooks.before"])
    );
    assert_eq!(functions["cycles"][0]["nodes"].as_array().unwrap().len(), 2);
    let (modules, _) = s.ok("cycles", json!({"level": "module"}));
    assert_eq!(modules["count"], 0);
    let e = s.err("cycles", json!({"level": "galaxy"}));
    assert!(e.contains("`level`") && e.contains("\"function\""), "{e}");

    // entry points and flows
    let (ep, _) = s.ok("entry_points", json!({}));
    assert_eq!(ep["entries"][0]["kind"], "route");
    assert_eq!(ep["entries"][0]["node"]["qualified_name"], "shop.api.items");
    assert_eq!(ep["entries"][0]["detail"], "@app.route");
    let (tests, _) = s.ok("entry_points", json!({"kind": ["test"]}));
    assert!(
        tests["entries"]
            .as_array()
            .unwrap()
            .iter()
            .all(|x| x["kind"] == "test"),
        "{tests:#}"
    );
    assert_eq!(
        tests["matching"].as_u64().unwrap(),
        tests["entries"].as_array().unwrap().len() as u64
    );
    let e = s.err("entry_points", json!({"kind": ["galaxy"]}));
    assert!(e.contains("argument `kind`") && e.contains("route"), "{e}");
    let (list, _) = s.ok("flows", json!({}));
    assert_eq!(
        list["flows"][0]["entry"]["qualified_name"],
        "shop.api.items"
    );
    let (tree, meta) = s.ok("flows", json!({"entry": "items", "depth": 3}));
    let steps: Vec<String> = tree["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            format!(
                "{} {}",
                x["depth"],
                x["node"]["qualified_name"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        steps,
        vec![
            "0 shop.api.items",
            "1 shop.api.fetch",
            "2 shop.hooks.before",
            "2 shop.store.Store.get",
            "3 shop.store.Store._load",
            "2 shop.store.Store",
        ],
        "{tree:#}"
    );
    assert_eq!(meta["truncated"], false);
    let (page, meta) = s.ok("flows", json!({"entry": "items", "depth": 3, "limit": 4}));
    assert_eq!(page["steps"].as_array().unwrap().len(), 4);
    let (rest, _) = s.ok(
        "flows",
        json!({"entry": "items", "depth": 3, "limit": 4, "cursor": meta["next_cursor"]}),
    );
    assert_eq!(rest["steps"].as_array().unwrap().len(), 2);
    assert_eq!(rest["steps"][0], tree["steps"][4]);
    let e = s.err("flows", json!({"entry": "no_such_thing"}));
    assert!(e.starts_with("argument `entry`"), "{e}");

    // dead code: dead when sure, unknown listed with reasons
    let (d, _) = s.ok("dead_code", json!({}));
    assert_eq!(d["dead_count"], 1, "{d:#}");
    assert_eq!(
        qnames(&d["dead"], "node"),
        vec!["shop.store._forgotten"],
        "{d:#}"
    );
    assert_eq!(d["dead"][0]["reason"], "unreferenced");
    assert!(d["unknown"].is_array(), "{d:#}");
    assert_eq!(
        d["unknown"].as_array().unwrap().len() as u64,
        d["unknown_count"].as_u64().unwrap(),
        "{d:#}"
    );
    assert!(d["unknown_share"].as_f64().is_some());
    assert_eq!(d["rules"]["exported_is_live"], true);
    let (d, _) = s.ok("dead_code", json!({"unknown": false, "kind": ["class"]}));
    assert_eq!(d["dead_count"], 0, "{d:#}");
    assert_eq!(d["unknown"], json!([]));

    // complexity and architecture
    let (c, _) = s.ok("complexity", json!({"limit": 2}));
    assert_eq!(
        c["most_complex"][0]["node"]["qualified_name"],
        "shop.store.Store._load"
    );
    assert_eq!(c["most_complex"][0]["complexity"], 3);
    assert_eq!(c["most_complex"].as_array().unwrap().len(), 2);
    assert!(!c["files"].as_array().unwrap().is_empty());
    let (only, _) = s.ok("complexity", json!({"path": "tests"}));
    assert_eq!(only["functions"], 1);
    let (none, meta) = s.ok("complexity", json!({"path": "nowhere"}));
    assert_eq!(none["functions"], 0);
    assert!(meta["hint"].as_str().unwrap().contains("nowhere"), "{meta}");
    let (a, _) = s.ok("architecture", json!({}));
    assert_eq!(a["modules"], 1, "{a:#}");
    assert!(a["hotspots"].is_array() && a["layers"].is_array());

    // A small budget cuts lists and says how to get the rest.
    let (small, meta) = s.ok("entry_points", json!({"max_tokens": 200}));
    assert!(
        (small["entries"].as_array().unwrap().len() as u64) < small["total"].as_u64().unwrap(),
        "{small:#}"
    );
    assert_eq!(meta["truncated"], true);
    assert!(meta["next_cursor"].is_string(), "{meta}");

    // Another indexed repository by `repo`; an unknown one names the argument.
    let (q, meta) = s.ok(
        "query",
        json!({"repo": r.repo.to_str().unwrap(), "query": "MATCH (c:Class) RETURN c.name"}),
    );
    assert_eq!(q["rows"], json!([["Store"]]));
    assert_eq!(meta["repository"], r.repo.to_str().unwrap());
    let e = s.err("schema", json!({"repo": "/no/such/repo"}));
    assert!(e.contains("argument `repo`"), "{e}");
    s.close();
}

fn python_has_mcp() -> bool {
    Command::new("python3")
        .args(["-c", "import mcp, jsonschema"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The Python SDK client with `--toolsets core,analytics`: every analytics answer validates
/// against its output schema (over stdio, and HTTP with the 2.x SDK when set up).
#[test]
fn python_mcp_sdk_validates_analytics_answers() {
    let mut pythons: Vec<String> = Vec::new();
    if python_has_mcp() {
        pythons.push("python3".into());
    } else {
        assert!(
            std::env::var("SEXTANT_REQUIRE_PY_MCP").as_deref() != Ok("1"),
            "SEXTANT_REQUIRE_PY_MCP=1 but `python3 -c 'import mcp'` fails: see .ci/run"
        );
        #[allow(clippy::print_stderr)]
        {
            eprintln!(
                "SKIPPED the Python SDK analytics client: python3 -m pip install mcp==1.30.0"
            );
        }
    }
    if let Some(py2) = std::env::var("SEXTANT_PY_MCP2")
        .ok()
        .filter(|p| !p.is_empty())
    {
        pythons.push(py2);
    }
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/mcp_python/test_client.py");
    for python in pythons {
        for transport in ["stdio", "http"] {
            let f = common::fixture(true);
            let out = Command::new(&python)
                .arg(&script)
                .arg("--bin")
                .arg(bin())
                .arg("--repo")
                .arg(&f.repo)
                .arg("--transport")
                .arg(transport)
                .args(["--toolsets", "core,analytics"])
                .env("SEXTANT_HOME", &f.home)
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "{python} {transport}: {stdout}\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(stdout.contains("9 passed, 0 failed"), "{stdout}");
        }
    }
}
