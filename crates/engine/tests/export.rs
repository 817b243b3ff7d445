//! Whole-graph export and the call graph, on a small Python + TypeScript repository indexed for
//! real (files on disk, a real SQLite database).

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use sextant_engine::{IndexOptions, Repo};

const FILES: &[(&str, &str)] = &[
    ("pkg/__init__.py", ""),
    (
        "pkg/models.py",
        r#"class User:
    def __init__(self, name):
        self.name = name

    def greet(self):
        return format_name(self.name)


def format_name(name):
    return name.title()
"#,
    ),
    (
        "pkg/service.py",
        r#"from pkg.models import User, format_name


def make_user(name):
    return User(name)


def welcome(name):
    return format_name(name) + make_user(name).greet()


welcome("x")
"#,
    ),
    (
        "src/util.ts",
        r#"export function add(a: number, b: number): number {
  return a + b;
}

export class Counter {
  count = 0;
  increment(): number {
    this.count = add(this.count, 1);
    return this.count;
  }
}
"#,
    ),
    (
        "src/main.ts",
        r#"import { add, Counter } from "./util";

export function run(): number {
  const c = new Counter();
  c.increment();
  return add(1, 2);
}

run();
"#,
    ),
];

fn indexed() -> (tempfile::TempDir, Repo) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("repo");
    let home = tmp.path().join("home");
    for (path, text) in FILES {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let options = IndexOptions {
        home: Some(home.clone()),
        threads: 1,
        ..IndexOptions::default()
    };
    sextant_engine::index(&dir, &options, &|_| {}).unwrap();
    let repo = Repo::open_in(&home, Path::new(&dir)).unwrap();
    (tmp, repo)
}

fn owned(pairs: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
        .collect()
}

#[test]
fn call_graph_by_qualified_name() {
    let (_tmp, repo) = indexed();
    let graph = repo.call_graph().unwrap();
    assert_eq!(
        graph,
        owned(&[
            ("pkg.models.User.greet", &["pkg.models.format_name"]),
            ("pkg.service", &["pkg.service.welcome"]),
            (
                "pkg.service.welcome",
                &[
                    "pkg.models.User.greet",
                    "pkg.models.format_name",
                    "pkg.service.make_user"
                ]
            ),
            // TypeScript modules are paths.
            ("src/main", &["src/main.run"]),
            (
                "src/main.run",
                &["src/util.Counter.increment", "src/util.add"]
            ),
            ("src/util.Counter.increment", &["src/util.add"]),
        ]),
        "{graph:#?}"
    );
}

#[test]
fn export_has_every_node_and_edge() {
    let (_tmp, repo) = indexed();
    let stats = repo.stats().unwrap();
    let all = repo.export_graph(&[]).unwrap();
    assert_eq!(all.generation, repo.generation());
    assert_eq!(all.commit, None, "not a git checkout");

    let node_total: u64 = stats.nodes.iter().map(|(_, n)| n).sum();
    assert_eq!(all.nodes.len() as u64, node_total);
    assert_eq!(all.nodes.iter().filter(|n| n.kind == "file").count(), 5);
    let ids: HashSet<i64> = all.nodes.iter().map(|n| n.id).collect();
    assert_eq!(ids.len(), all.nodes.len(), "node ids are unique");
    assert!(all.nodes.iter().all(|n| n.stable_id.starts_with("sym_")));
    let greet = all
        .nodes
        .iter()
        .find(|n| n.qualified_name == "pkg.models.User.greet")
        .unwrap();
    assert_eq!(
        (
            greet.kind.as_str(),
            greet.path.as_str(),
            greet.language.as_str()
        ),
        ("method", "pkg/models.py", "python")
    );
    assert_eq!((greet.start_line, greet.end_line), (5, 6));

    // Edge counts by kind/provenance match the stats (containment included).
    let mut by_kind: BTreeMap<String, u64> = BTreeMap::new();
    for e in &all.edges {
        assert!(ids.contains(&e.src) && ids.contains(&e.dst), "{e:?}");
        assert_eq!(e.site.is_none(), e.kind == "contains", "{e:?}");
        *by_kind
            .entry(format!("{}/{}", e.kind, e.provenance))
            .or_default() += 1;
    }
    let expected: BTreeMap<String, u64> = stats.edges.iter().cloned().collect();
    assert_eq!(by_kind, expected);
    assert!(by_kind["contains/asserted"] > 0 && by_kind["calls/inferred"] > 0);

    let site_edge = all
        .edges
        .iter()
        .find(|e| {
            e.kind == "calls"
                && e.src_qualified_name == "pkg.models.User.greet"
                && e.dst_qualified_name == "pkg.models.format_name"
        })
        .unwrap();
    let site = site_edge.site.as_ref().unwrap();
    assert_eq!((site.path.as_str(), site.line), ("pkg/models.py", 6));

    // Filtering by kind keeps every node and only those edges.
    let calls = repo.export_graph(&["calls".to_string()]).unwrap();
    assert_eq!(calls.nodes.len(), all.nodes.len());
    assert!(calls.edges.iter().all(|e| e.kind == "calls"));
    assert_eq!(
        calls.edges.len(),
        all.edges.iter().filter(|e| e.kind == "calls").count()
    );
    let contains = repo.export_graph(&["contains".to_string()]).unwrap();
    assert_eq!(
        contains.edges.len() as u64,
        by_kind["contains/asserted"],
        "one contains edge per non-file node"
    );
    assert_eq!(
        contains.edges.len(),
        all.nodes.iter().filter(|n| n.kind != "file").count()
    );
}
