//! End-to-end: `sextant impact`, `path`, `hierarchy` and `overview` (text and `--json`) with the
//! real binary on a small Python repository made in a temp dir, data in a temp `SEXTANT_HOME`.

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
    let repo = tmp.path().join("app");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&repo).unwrap();
    write(&repo, "app/__init__.py", "");
    write(
        &repo,
        "app/store.py",
        "class Store:\n    def get(self, key):\n        return key\n\n\nclass CachedStore(Store):\n    def get(self, key):\n        return super().get(key)\n",
    );
    write(
        &repo,
        "app/api.py",
        "from app.store import Store\n\n\ndef fetch(key):\n    return Store().get(key)\n\n\ndef handler(request):\n    return fetch(request)\n",
    );
    write(
        &repo,
        "tests/test_api.py",
        "from app.api import handler\n\n\ndef test_handler():\n    assert handler(1) == 1\n",
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

    fn json(&self, args: &[&str]) -> Value {
        let mut all = args.to_vec();
        all.push("--json");
        let (code, stdout, stderr) = self.run(&all);
        assert_eq!(code, 0, "{args:?}: {stderr}\n{stdout}");
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {stdout}"))
    }
}

fn names(list: &Value, key: &str) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|v| v["symbol"][key].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn impact_path_hierarchy_and_overview() {
    let f = fixture();
    f.json(&["index", f.repo.to_str().unwrap()]);

    // Upstream of `fetch`: handler will break; the test and the files importing handler follow.
    let impact = f.json(&["impact", "fetch", "--depth", "2"]);
    assert_eq!(impact["direction"], "upstream");
    let affected = impact["affected"].as_array().unwrap();
    assert_eq!(affected[0]["symbol"]["qualified_name"], "app.api.handler");
    assert_eq!(affected[0]["depth"], 1);
    assert_eq!(affected[0]["risk"], "will_break");
    assert_eq!(affected[0]["edge"], "calls");
    assert_eq!(affected[0]["from"], "app.api.fetch");
    let test = affected
        .iter()
        .find(|a| a["symbol"]["name"] == "test_handler")
        .unwrap_or_else(|| panic!("{impact:#}"));
    assert_eq!(test["depth"], 2);
    assert_eq!(test["risk"], "likely_affected");
    assert_eq!(test["labels"][0], "test");
    assert_eq!(impact["test_files"][0], "tests/test_api.py");
    assert_eq!(impact["summary"]["by_depth"]["1"], 1);
    assert_eq!(impact["completeness"]["status"], "exact");
    // The per-level limit holds.
    let cut = f.json(&["impact", "fetch", "--depth", "2", "--limit", "1"]);
    assert_eq!(cut["truncated"], true);
    assert_eq!(cut["count"], 2);
    // Several roots, both directions.
    let both = f.json(&["impact", "fetch", "handler", "--direction", "both"]);
    assert_eq!(both["roots"].as_array().unwrap().len(), 2);
    assert!(
        both["affected"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["direction"] == "downstream" && a["symbol"]["name"] == "Store"),
        "{both:#}"
    );
    let (code, text, _) = f.run(&["impact", "fetch"]);
    assert_eq!(code, 0);
    assert!(
        text.contains("depth 1 (will break): 1") && text.contains("tests to run"),
        "{text}"
    );

    // A path from the test to the class, hop by hop.
    let path = f.json(&["path", "test_handler", "app.store.Store"]);
    assert_eq!(path["found"], true, "{path:#}");
    assert_eq!(
        names(&path["hops"], "qualified_name"),
        vec!["app.api.handler", "app.api.fetch", "app.store.Store"]
    );
    let hops = path["hops"].as_array().unwrap();
    assert_eq!(hops[0]["edge"], "calls");
    assert_eq!(hops[0]["site"]["path"], "tests/test_api.py");
    assert_eq!(hops[2]["edge"], "instantiates");
    // None the other way, and it says the search was exhaustive.
    let none = f.json(&["path", "app.store.Store", "test_handler"]);
    assert_eq!(none["found"], false);
    assert_eq!(none["exhausted"], true);
    let (code, text, _) = f.run(&["path", "app.store.Store", "test_handler"]);
    assert_eq!(code, 0);
    assert!(text.starts_with("no path from app.store.Store"), "{text}");
    // Unknown edge kinds are usage errors.
    let (code, _, stderr) = f.run(&["path", "fetch", "Store", "--kind", "bogus"]);
    assert_eq!(code, 2, "{stderr}");

    let h = f.json(&["hierarchy", "app.store.CachedStore.get"]);
    assert_eq!(
        names(&h["overrides"], "qualified_name"),
        vec!["app.store.Store.get"]
    );
    let h = f.json(&["hierarchy", "app.store.Store"]);
    assert_eq!(
        names(&h["derived"], "qualified_name"),
        vec!["app.store.CachedStore"]
    );

    let o = f.json(&["overview"]);
    assert_eq!(o["totals"]["files"], 4);
    assert_eq!(o["languages"][0]["language"], "python");
    assert!(o["central"].as_array().unwrap().len() >= 2, "{o:#}");
    let (code, text, _) = f.run(&["overview"]);
    assert_eq!(code, 0);
    assert!(text.contains("most depended on"), "{text}");
}
