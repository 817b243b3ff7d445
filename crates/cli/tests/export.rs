//! End-to-end `sextant export`: the real binary on a small git repository in a temp dir, every
//! format parsed back (JSON, JSON lines, GraphML as XML, DOT line by line), `--kinds`,
//! `--output` and usage errors.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

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

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("app");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&repo).unwrap();
    write(&repo, "app/__init__.py", "");
    write(
        &repo,
        "app/core.py",
        "class Store:\n    def load(self, key):\n        return helper(key)\n\n\ndef helper(key):\n    return key\n",
    );
    write(
        &repo,
        "app/main.py",
        "from app.core import Store, helper\n\n\ndef main():\n    return Store().load(helper(1))\n\n\nmain()\n",
    );
    // Names that need escaping in DOT, XML and JSON.
    write(
        &repo,
        "README.md",
        "# Notes & \"quotes\" <tags> 'apostrophes' \\ backslash\n\nText.\n",
    );
    write(
        &repo,
        "web/util.ts",
        "export function add(a: number, b: number): number {\n  return a + b;\n}\n",
    );
    write(
        &repo,
        "web/main.ts",
        "import { add } from \"./util\";\n\nexport function run(): number {\n  return add(1, 2);\n}\n",
    );
    git(&repo, &["init", "-q", "-b", "main"]);
    git(&repo, &["add", "-A"]);
    git(&repo, &["commit", "-q", "-m", "init"]);
    let f = Fixture {
        _tmp: tmp,
        repo,
        home,
    };
    let (code, _, stderr) = f.run(&["index", f.repo.to_str().unwrap()]);
    assert_eq!(code, 0, "{stderr}");
    f
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

    fn export(&self, args: &[&str]) -> String {
        let mut all = vec!["export"];
        all.extend_from_slice(args);
        let (code, stdout, stderr) = self.run(&all);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        stdout
    }
}

#[test]
fn export_json_is_one_document_with_nodes_edges_and_commit() {
    let f = fixture();
    let doc: Value = serde_json::from_str(&f.export(&["--format", "json"])).unwrap();
    let nodes = doc["nodes"].as_array().unwrap();
    let edges = doc["edges"].as_array().unwrap();
    assert!(doc["generation"].as_i64().unwrap() > 0);
    assert_eq!(doc["commit"].as_str().map(str::len), Some(40));
    let load = nodes
        .iter()
        .find(|n| n["qualified_name"] == "app.core.Store.load")
        .unwrap();
    for key in [
        "id",
        "stable_id",
        "kind",
        "name",
        "path",
        "start_line",
        "end_line",
        "language",
    ] {
        assert!(!load[key].is_null(), "{key}: {load}");
    }
    assert_eq!(load["path"], "app/core.py");
    let ids: std::collections::HashSet<i64> =
        nodes.iter().map(|n| n["id"].as_i64().unwrap()).collect();
    let call = edges
        .iter()
        .find(|e| e["kind"] == "calls" && e["src"] == load["id"])
        .unwrap();
    assert_eq!(call["site"]["path"], "app/core.py");
    assert_eq!(call["site"]["line"], 3);
    assert!(!call["provenance"].is_null() && !call["rule"].is_null());
    for e in edges {
        assert!(ids.contains(&e["src"].as_i64().unwrap()), "{e}");
        assert!(ids.contains(&e["dst"].as_i64().unwrap()), "{e}");
    }
    let contains: Vec<&Value> = edges.iter().filter(|e| e["kind"] == "contains").collect();
    assert_eq!(
        contains.len(),
        nodes.iter().filter(|n| n["kind"] != "file").count()
    );
    assert!(
        contains
            .iter()
            .all(|e| e["provenance"] == "asserted" && e["site"].is_null())
    );
    // The default is JSON; --json (error format) does not change it.
    let default: Value = serde_json::from_str(&f.export(&[])).unwrap();
    assert_eq!(default, doc);
}

#[test]
fn export_jsonl_lines_each_parse_nodes_first() {
    let f = fixture();
    let doc: Value = serde_json::from_str(&f.export(&["--format", "json"])).unwrap();
    let text = f.export(&["--format", "jsonl"]);
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    let nodes = lines.iter().take_while(|l| l["type"] == "node").count();
    assert_eq!(nodes, doc["nodes"].as_array().unwrap().len());
    assert!(lines[nodes..].iter().all(|l| l["type"] == "edge"));
    assert_eq!(lines.len() - nodes, doc["edges"].as_array().unwrap().len());
}

#[test]
fn export_kinds_filters_edges() {
    let f = fixture();
    let doc: Value =
        serde_json::from_str(&f.export(&["--format", "json", "--kinds", "calls,imports"])).unwrap();
    let edges = doc["edges"].as_array().unwrap();
    assert!(edges.iter().any(|e| e["kind"] == "calls"));
    assert!(
        edges
            .iter()
            .all(|e| e["kind"] == "calls" || e["kind"] == "imports"),
        "{edges:?}"
    );
    let (code, _, stderr) = f.run(&["export", "--kinds", "callz"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("callz"), "{stderr}");
    let (code, _, _) = f.run(&["export", "--format", "yaml"]);
    assert_eq!(code, 2);
}

#[test]
fn export_dot_has_a_line_per_node_and_edge() {
    let f = fixture();
    let doc: Value = serde_json::from_str(&f.export(&["--format", "json"])).unwrap();
    let dot = f.export(&["--format", "dot"]);
    assert!(dot.starts_with("digraph"), "{dot}");
    assert!(dot.trim_end().ends_with('}'));
    let edge_lines = dot.lines().filter(|l| l.contains(" -> ")).count();
    assert_eq!(edge_lines, doc["edges"].as_array().unwrap().len());
    let node_lines = dot
        .lines()
        .filter(|l| l.trim_start().starts_with('n') && l.contains("[label="))
        .filter(|l| !l.contains(" -> "))
        .count();
    assert_eq!(node_lines, doc["nodes"].as_array().unwrap().len());
    // Quotes and backslashes in names are escaped inside the quoted label.
    let heading = dot
        .lines()
        .find(|l| l.contains("Notes &") && !l.contains(" -> "))
        .unwrap();
    assert!(
        heading.contains(r#"\"quotes\""#) && heading.contains(r"\\ backslash"),
        "{heading}"
    );
    let calls_only = f.export(&["--format", "dot", "--kinds", "calls"]);
    assert!(
        calls_only
            .lines()
            .filter(|l| l.contains(" -> "))
            .all(|l| l.contains("label=\"calls\""))
    );
}

#[test]
fn export_graphml_is_well_formed_xml() {
    let f = fixture();
    let out = f._tmp.path().join("graph.graphml");
    let (code, stdout, stderr) = f.run(&[
        "export",
        "--format",
        "graphml",
        "--output",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.is_empty(), "--output writes nothing to stdout");
    let xml = std::fs::read_to_string(&out).unwrap();
    assert!(xml.starts_with("<?xml"));
    assert!(xml.contains(r#"<key id="n_qualified_name" for="node""#));
    assert!(xml.contains("Notes &amp; &quot;quotes&quot; &lt;tags&gt;"));
    let doc: Value = serde_json::from_str(&f.export(&["--format", "json"])).unwrap();
    assert_eq!(
        xml.matches("<node ").count(),
        doc["nodes"].as_array().unwrap().len()
    );
    assert_eq!(
        xml.matches("<edge ").count(),
        doc["edges"].as_array().unwrap().len()
    );
    assert_balanced_tags(&xml);
    // A real XML parser when python3 is installed.
    if let Ok(p) = Command::new("python3")
        .arg("-c")
        .arg("import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])")
        .arg(&out)
        .output()
    {
        assert!(p.status.success(), "{}", String::from_utf8_lossy(&p.stderr));
    }
}

/// Every start tag is closed by the matching end tag, in order; no raw `<` or `&` in text.
fn assert_balanced_tags(xml: &str) {
    let mut stack: Vec<&str> = Vec::new();
    let mut rest = xml;
    while let Some(start) = rest.find('<') {
        let text = &rest[..start];
        assert!(!text.contains('>'), "raw > in text: {text}");
        for (i, _) in text.match_indices('&') {
            let entity = &text[i..text[i..].find(';').map_or(text.len(), |e| i + e + 1)];
            assert!(
                ["&amp;", "&lt;", "&gt;", "&quot;", "&apos;"].contains(&entity)
                    || entity.starts_with("&#"),
                "bad entity {entity}"
            );
        }
        let end = rest[start..].find('>').expect("unclosed tag") + start;
        let tag = &rest[start + 1..end];
        if tag.starts_with('?') || tag.ends_with('/') {
            // The XML declaration and empty elements.
        } else if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop(), Some(name), "mismatched </{name}>");
        } else {
            stack.push(tag.split_whitespace().next().unwrap());
        }
        rest = &rest[end + 1..];
    }
    assert!(stack.is_empty(), "unclosed {stack:?}");
}

#[test]
fn export_callgraph_by_qualified_name() {
    let f = fixture();
    let graph: Value = serde_json::from_str(&f.export(&["--format", "callgraph"])).unwrap();
    assert_eq!(
        graph,
        serde_json::json!({
            "app.core.Store.load": ["app.core.helper"],
            "app.main": ["app.main.main"],
            "app.main.main": ["app.core.Store.load", "app.core.helper"],
            "web/main.run": ["web/util.add"],
        })
    );
}

#[test]
fn export_to_a_closed_pipe_succeeds() {
    let f = fixture();
    let mut child = Command::cargo_bin("sextant")
        .unwrap()
        .args(["export", "--format", "jsonl", "--repo"])
        .arg(&f.repo)
        .env("SEXTANT_HOME", &f.home)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
