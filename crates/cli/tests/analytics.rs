//! End-to-end: the analytics commands (`query`, `schema`, `central`, `bridges`, `communities`,
//! `cycles`, `entry-points`, `flows`, `dead-code`, `complexity`, `architecture`), text and
//! `--json`, exit codes, with the real binary on a small Python repository made in a temp dir
//! and data in a temp `SEXTANT_HOME`.

use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::CommandCargoExt;
use serde_json::Value;

struct Fixture {
    _tmp: tempfile::TempDir,
    repo: PathBuf,
    home: PathBuf,
}

fn write(root: &Path, path: &str, text: &str) {
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
    Fixture {
        _tmp: tmp,
        repo,
        home,
    }
}

impl Fixture {
    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let out = Command::cargo_bin("sextant")
            .unwrap()
            .args(args)
            .arg("--repo")
            .arg(&self.repo)
            .env("SEXTANT_HOME", &self.home)
            .env_remove("SEXTANT_LOG")
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    fn text(&self, args: &[&str]) -> String {
        let (code, stdout, stderr) = self.run(args);
        assert_eq!(code, 0, "{args:?}: {stderr}\n{stdout}");
        stdout
    }

    fn json(&self, args: &[&str]) -> Value {
        let mut all = args.to_vec();
        all.push("--json");
        let (code, stdout, stderr) = self.run(&all);
        assert_eq!(code, 0, "{args:?}: {stderr}\n{stdout}");
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {stdout}"))
    }

    fn index(&self) {
        self.json(&["index", self.repo.to_str().unwrap()]);
    }
}

fn qnames(list: &Value, node: &str) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|v| v[node]["qualified_name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn central_bridges_and_communities() {
    let f = fixture();
    f.index();
    let c = f.json(&["central", "--limit", "3"]);
    assert_eq!(c["cached"], false);
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
    // The scores persist across processes.
    let again = f.json(&["central", "--limit", "3"]);
    assert_eq!(again["cached"], true);
    assert_eq!(again["results"], c["results"]);
    let classes = f.json(&["central", "--kind", "class"]);
    assert_eq!(
        qnames(&classes["results"], "node"),
        vec!["shop.store.Store"]
    );
    let text = f.text(&["central"]);
    assert!(text.starts_with("most central symbols (PageRank"), "{text}");
    assert!(text.contains("shop.api.fetch"), "{text}");
    let (code, _, stderr) = f.run(&["central", "--kind", "galaxy"]);
    assert_eq!(code, 2, "{stderr}");

    let b = f.json(&["bridges"]);
    assert_eq!(b["exact"], true);
    assert_eq!(b["results"][0]["node"]["qualified_name"], "shop.api.fetch");
    assert!(f.text(&["bridges"]).contains("exact"));

    let com = f.json(&["communities", "--min-size", "1"]);
    assert!(com["count"].as_u64().unwrap() >= 1);
    assert!(com["modularity"].as_f64().is_some());
    let first = &com["communities"][0];
    assert_eq!(first["id"], 0);
    assert!(first["label"].as_str().is_some());
    assert!(!first["top_members"].as_array().unwrap().is_empty());
    let text = f.text(&["communities", "--min-size", "1"]);
    assert!(text.contains("communities"), "{text}");
}

#[test]
fn cycles_entry_points_flows_and_dead_code() {
    let f = fixture();
    f.index();
    let files = f.json(&["cycles"]);
    assert_eq!(files["level"], "file");
    assert_eq!(files["count"], 1);
    assert_eq!(
        files["cycles"][0]["members"],
        serde_json::json!(["shop/api.py", "shop/hooks.py"])
    );
    let functions = f.json(&["cycles", "--level", "function"]);
    assert_eq!(
        functions["cycles"][0]["members"],
        serde_json::json!(["shop.api.fetch", "shop.hooks.before"])
    );
    let modules = f.json(&["cycles", "--level", "module"]);
    assert_eq!(modules["count"], 0);
    let text = f.text(&["cycles"]);
    assert!(text.starts_with("1 dependency cycle among files"), "{text}");
    assert!(text.contains("shop/api.py -> shop/hooks.py"), "{text}");
    let (code, _, _) = f.run(&["cycles", "--level", "galaxy"]);
    assert_eq!(code, 2);

    let e = f.json(&["entry-points"]);
    let entries = e["entries"].as_array().unwrap();
    assert_eq!(entries[0]["kind"], "route");
    assert_eq!(entries[0]["node"]["qualified_name"], "shop.api.items");
    assert_eq!(entries[0]["detail"], "@app.route");
    assert!(
        entries
            .iter()
            .any(|x| x["kind"] == "test" && x["node"]["name"] == "test_fetch")
    );
    assert!(f.text(&["entry-points"]).contains("route"));

    let list = f.json(&["flows"]);
    assert_eq!(
        list["flows"][0]["entry"]["qualified_name"],
        "shop.api.items"
    );
    let tree = f.json(&["flows", "items", "--depth", "3"]);
    let steps: Vec<String> = tree["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            format!(
                "{} {}",
                s["depth"],
                s["node"]["qualified_name"].as_str().unwrap()
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
    let text = f.text(&["flows", "items"]);
    assert!(text.starts_with("flow from shop.api.items"), "{text}");
    assert!(text.contains("    calls shop.api.fetch"), "{text}");
    let (code, _, stderr) = f.run(&["flows", "no_such_thing"]);
    assert_eq!(code, 3, "{stderr}");

    let d = f.json(&["dead-code"]);
    assert_eq!(d["dead_count"], 1, "{d:#}");
    assert_eq!(
        d["dead"][0]["node"]["qualified_name"],
        "shop.store._forgotten"
    );
    assert_eq!(d["dead"][0]["status"], "dead");
    assert!(d["unknown_share"].as_f64().is_some());
    let text = f.text(&["dead-code"]);
    assert!(text.starts_with("dead code: 1 dead"), "{text}");
    assert!(text.contains("shop.store._forgotten"), "{text}");

    // Liveness rules from the repository's .sextant.toml.
    write(
        &f.repo,
        ".sextant.toml",
        "[dead_code]\nlive_names = [\"_forgotten\"]\n",
    );
    let d = f.json(&["dead-code"]);
    assert_eq!(d["dead_count"], 0, "{d:#}");
    write(&f.repo, ".sextant.toml", "[dead_code]\nbogus = 1\n");
    let (code, _, stderr) = f.run(&["dead-code"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains(".sextant.toml"), "{stderr}");
}

#[test]
fn complexity_architecture_and_schema() {
    let f = fixture();
    f.index();
    let c = f.json(&["complexity", "--limit", "2"]);
    assert_eq!(
        c["most_complex"][0]["node"]["qualified_name"],
        "shop.store.Store._load"
    );
    assert_eq!(c["most_complex"][0]["complexity"], 3);
    assert_eq!(c["most_complex"].as_array().unwrap().len(), 2);
    let only = f.json(&["complexity", "--path", "tests"]);
    assert_eq!(only["functions"], 1);
    let text = f.text(&["complexity"]);
    assert!(text.contains("most complex"), "{text}");

    let a = f.json(&["architecture"]);
    assert_eq!(a["modules"], 1);
    assert!(a["hotspots"].as_array().is_some());
    let text = f.text(&["architecture"]);
    assert!(text.contains("layers"), "{text}");

    let s = f.json(&["schema"]);
    let labels: Vec<&str> = s["node_labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["name"].as_str().unwrap())
        .collect();
    assert!(
        labels.contains(&"Function") && labels.contains(&"Class"),
        "{s:#}"
    );
    let text = f.text(&["schema"]);
    assert!(
        text.contains("relationship types") && text.contains("CALLS"),
        "{text}"
    );
}

#[test]
fn query_prints_rows_and_errors_with_a_caret() {
    let f = fixture();
    f.index();
    let q = f.json(&[
        "query",
        "MATCH (a)-[:CALLS]->(b {name: 'fetch'}) RETURN a.qualified_name AS caller ORDER BY caller",
    ]);
    assert_eq!(q["columns"], serde_json::json!(["caller"]));
    assert_eq!(
        q["rows"],
        serde_json::json!([
            ["shop.api.items"],
            ["shop.hooks.before"],
            ["test_api.test_fetch"]
        ])
    );
    let text = f.text(&[
        "query",
        "MATCH (f:Function {name: 'fetch'}) RETURN f.name, f.path",
    ]);
    assert!(
        text.contains("fetch") && text.contains("shop/api.py"),
        "{text}"
    );
    assert!(text.contains("(1 row"), "{text}");
    // Nodes come out as objects; an output cap keeps whole rows and says so.
    let q = f.json(&["query", "MATCH (n) RETURN n", "--max-bytes", "400"]);
    let t = &q["output_truncated"];
    assert!(
        t["rows_kept"].as_u64().unwrap() < t["rows_total"].as_u64().unwrap(),
        "{q:#}"
    );
    assert_eq!(
        q["rows"].as_array().unwrap().len() as u64,
        t["rows_kept"].as_u64().unwrap()
    );
    let q = f.json(&["query", "MATCH (n) RETURN n.name", "--max-rows", "2"]);
    assert_eq!(q["truncated"], true);
    assert_eq!(q["rows"].as_array().unwrap().len(), 2);

    let (code, stdout, stderr) = f.run(&["query", "MATCH (n:Function RETURN n"]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(stderr.contains("line 1, column"), "{stderr}");
    assert!(stderr.contains('^'), "{stderr}");
    let (code, stdout, _) = f.run(&["query", "MATCH (n:Galaxy) RETURN n", "--json"]);
    assert_eq!(code, 2);
    let e: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(e["error"]["kind"], "query_error");
    assert_eq!(e["error"]["details"]["kind"], "unknown");
}

#[test]
fn analytics_need_an_index() {
    let f = fixture();
    let (code, _, stderr) = f.run(&["central"]);
    assert_eq!(code, 4, "{stderr}");
}
