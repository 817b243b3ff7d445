//! Graph analytics on a real indexed fixture repository (files on disk, a real SQLite database,
//! the in-memory graph): central symbols, bridges, communities, cycles at three levels, entry
//! points, flows, dead code with its `unknown` share and configured liveness rules, complexity,
//! architecture, the schema and Cypher queries (rows, truncation, errors), and the derived-result
//! cache (a second call and a reopened repository reuse `derived.db`).

use std::path::Path;
use std::time::Duration;

use sextant_engine::*;

const FIXTURE: &str = r#"
//- /app/__init__.py
//- /app/core.py
class Repository:
    def __init__(self):
        self.items = []

    def add(self, item):
        self.items.append(item)
        return self._index(item)

    def _index(self, item):
        return len(self.items)

    def _unused_helper(self):
        return 1

    def __repr__(self):
        return "Repository"


def _orphan():
    return 2


def _called_somehow():
    return 3


def classify(x):
    if x > 10:
        return "big"
    elif x > 5:
        return "medium"
    for i in range(x):
        if i % 2 and i % 3:
            return "odd"
    while x:
        x -= 1
    return "small"
//- /app/service.py
from app.core import Repository, classify
from app.events import emit
from lib.util import helper


def make():
    return Repository()


def handle(x):
    repo = make()
    emit(x)
    helper()
    return repo.add(classify(x))


def notify(x):
    return handle(x)


def ping(n):
    return pong(n - 1)


def pong(n):
    return ping(n - 1)
//- /app/events.py
from app import service


def emit(x):
    if x:
        service.notify(x - 1)
//- /app/web.py
from flask import Flask
from app.service import handle

app = Flask(__name__)


@app.route("/items")
def items():
    return handle(1)


@login_required
def _guarded():
    return 0
//- /app/cli.py
import click
from app.service import handle


@click.command()
def run():
    handle(2)


def main():
    run()


if __name__ == "__main__":
    main()
//- /app/dynamic.py
def dispatch(obj, name):
    return getattr(obj, name)()


def _target():
    return 1


def poke(thing):
    return thing._called_somehow()
//- /app/mixins.py
class Base:
    def combine(self):
        return self._merge()

    def _merge(self):
        return 1


class MergeMixin:
    def _merge(self):
        return 2

    def _shown_in_template(self):
        return 3
//- /app/templates/page.html
<p>{{ view._shown_in_template }}</p>
//- /lib/__init__.py
//- /lib/util.py
from app.core import Repository


def helper():
    return Repository()


def _wrapped():
    return 0


_wrapped = staticmethod(_wrapped)


def _private_unused():
    return 0


def public_unused():
    return 1
//- /tests/test_service.py
from app.service import handle


def test_handle():
    assert handle(1)
"#;

/// Writes a `//- /path` fixture into `dir`.
fn materialize(fixture: &str, dir: &Path) {
    let mut current: Option<(std::path::PathBuf, String)> = None;
    let flush = |current: &mut Option<(std::path::PathBuf, String)>| {
        if let Some((path, text)) = current.take() {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
    };
    for line in fixture.lines() {
        if let Some(path) = line.strip_prefix("//- /") {
            flush(&mut current);
            current = Some((dir.join(path.trim()), String::new()));
        } else if let Some((_, text)) = current.as_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    flush(&mut current);
}

struct Indexed {
    _tmp: tempfile::TempDir,
    root: std::path::PathBuf,
    home: std::path::PathBuf,
    repo: Repo,
}

fn indexed(fixture: &str, config: Option<&str>) -> Indexed {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("repo");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(&root).unwrap();
    materialize(fixture, &root);
    if let Some(c) = config {
        std::fs::write(root.join(".sextant.toml"), c).unwrap();
    }
    let options = IndexOptions {
        home: Some(home.clone()),
        threads: 1,
        ..IndexOptions::default()
    };
    sextant_engine::index(&root, &options, &|_| {}).unwrap();
    let repo = Repo::open_in(&home, &root).unwrap();
    Indexed {
        _tmp: tmp,
        root,
        home,
        repo,
    }
}

/// Compares with the expected text, showing the whole answer on a mismatch.
fn check(actual: &str, expected: &str) {
    let expected = expected.trim_start_matches('\n');
    assert!(
        actual == expected,
        "expected:\n{expected}\nactual:\n{actual}"
    );
}

fn names(list: &[RankedNode]) -> Vec<&str> {
    list.iter()
        .map(|r| r.node.qualified_name.as_str())
        .collect()
}

#[test]
fn central_ranks_what_everything_depends_on_and_caches_the_scores() {
    let ix = indexed(FIXTURE, None);
    let c = ix.repo.central(&[], 5).unwrap();
    assert!(!c.cached, "first computation");
    assert!(c.converged);
    // Files are not ranked: 11 files, 35 other nodes.
    assert_eq!(c.nodes_ranked, 35);
    assert_eq!(c.results[0].node.qualified_name, "app.service.handle");
    assert_eq!(c.results[0].rank, 1);
    assert_eq!(c.results[0].incoming, 7);
    assert!(c.results.windows(2).all(|w| w[0].score >= w[1].score));
    assert!(
        c.results.iter().all(|r| !r.node.path.starts_with("tests/")),
        "tests are not listed"
    );
    // Only classes.
    let classes = ix.repo.central(&["class".into()], 5).unwrap();
    assert_eq!(
        classes.results[0].node.qualified_name,
        "app.core.Repository"
    );
    assert!(classes.results.iter().all(|r| r.node.kind == "class"));
    assert!(ix.repo.central(&["nope".into()], 5).is_err());

    // The second call reads derived.db; so does a repository opened again.
    let again = ix.repo.central(&[], 5).unwrap();
    assert!(again.cached);
    assert_eq!(names(&again.results), names(&c.results));
    let reopened = Repo::open_in(&ix.home, &ix.root).unwrap();
    let third = reopened.central(&[], 5).unwrap();
    assert!(third.cached);
    assert_eq!(names(&third.results), names(&c.results));
    assert!(reopened.data.derived().is_file());
}

#[test]
fn derived_results_follow_the_generation() {
    let ix = indexed(FIXTURE, None);
    assert!(!ix.repo.bridges(3).unwrap().cached);
    assert!(ix.repo.bridges(3).unwrap().cached);
    // A new generation recomputes (and prunes the old one's rows).
    std::fs::write(
        ix.root.join("lib/more.py"),
        "from lib.util import helper\n\n\ndef more():\n    return helper()\n",
    )
    .unwrap();
    let options = IndexOptions {
        home: Some(ix.home.clone()),
        threads: 1,
        ..IndexOptions::default()
    };
    sextant_engine::index(&ix.root, &options, &|_| {}).unwrap();
    let repo = Repo::open_in(&ix.home, &ix.root).unwrap();
    assert!(repo.generation() > ix.repo.generation());
    let b = repo.bridges(3).unwrap();
    assert!(!b.cached, "a new generation is computed afresh");
    assert!(repo.bridges(3).unwrap().cached);
    // The old repository still answers from its own generation.
    assert!(ix.repo.bridges(3).unwrap().generation < b.generation);
}

#[test]
fn bridges_are_exact_on_small_graphs() {
    let ix = indexed(FIXTURE, None);
    let b = ix.repo.bridges(3).unwrap();
    assert!(b.exact);
    assert_eq!(b.sources, b.nodes);
    assert_eq!(b.results[0].node.qualified_name, "app.service.handle");
    assert!(b.results[0].score > 0.0);
}

#[test]
fn communities_partition_the_code_with_labels_and_links() {
    let ix = indexed(FIXTURE, None);
    let c = ix.repo.communities(1, 1000).unwrap();
    assert!(!c.cached);
    assert!(c.modularity > 0.0);
    assert_eq!(c.eligible, c.count);
    // Every ranked node is in exactly one community.
    let total: usize = c.communities.iter().map(|c| c.size).sum();
    assert_eq!(total, 35);
    assert!(c.communities.windows(2).all(|w| w[0].size >= w[1].size));
    let first = &c.communities[0];
    assert_eq!(first.id, 0);
    assert!(!first.label.is_empty());
    assert!(!first.top_members.is_empty());
    // handle, emit and notify call each other: one community.
    let of = |name: &str| {
        c.communities
            .iter()
            .find(|c| c.top_members.iter().any(|m| m.node.qualified_name == name))
            .map(|c| c.id)
    };
    assert!(of("app.service.handle").is_some());
    assert_eq!(of("app.service.handle"), of("app.service.notify"));
    // Links are symmetric.
    for com in &c.communities {
        for l in &com.links {
            let back = &c.communities[l.community as usize];
            assert!(
                back.links.iter().any(|b| b.community == com.id) || back.links.len() == 5,
                "link {} -> {} has no way back",
                com.id,
                l.community
            );
        }
    }
    let big = ix.repo.communities(3, 10).unwrap();
    assert!(big.communities.iter().all(|c| c.size >= 3));
    assert!(big.cached);
}

fn cycles_text(c: &Cycles) -> String {
    let mut out = format!("{} {} cycles\n", c.level, c.count);
    for cy in &c.cycles {
        out.push_str(&format!("  {}\n", cy.members.join(" <-> ")));
        for e in &cy.edges {
            out.push_str(&format!("    {} -> {} ({})\n", e.from, e.to, e.count));
        }
    }
    out
}

#[test]
fn cycles_at_file_module_and_function_level() {
    let ix = indexed(FIXTURE, None);
    let r = &ix.repo;
    check(
        &cycles_text(&r.cycles("file", 10).unwrap()),
        "
file 1 cycles
  app/events.py <-> app/service.py
    app/events.py -> app/service.py (3)
    app/service.py -> app/events.py (2)
",
    );
    check(
        &cycles_text(&r.cycles("module", 10).unwrap()),
        "
module 1 cycles
  app <-> lib
    app -> lib (2)
    lib -> app (2)
",
    );
    let f = r.cycles("function", 10).unwrap();
    check(
        &cycles_text(&f),
        "
function 2 cycles
  app.events.emit <-> app.service.handle <-> app.service.notify
    app.events.emit -> app.service.notify (1)
    app.service.handle -> app.events.emit (1)
    app.service.notify -> app.service.handle (1)
  app.service.ping <-> app.service.pong
    app.service.ping -> app.service.pong (1)
    app.service.pong -> app.service.ping (1)
",
    );
    assert_eq!(f.nodes_in_first(), 3);
    assert!(matches!(
        r.cycles("galaxy", 10),
        Err(Error::InvalidArgument(_))
    ));
}

trait FirstNodes {
    fn nodes_in_first(&self) -> usize;
}

impl FirstNodes for Cycles {
    fn nodes_in_first(&self) -> usize {
        self.cycles.first().map_or(0, |c| c.nodes.len())
    }
}

fn entry_text(e: &EntryPoints) -> String {
    let mut out = format!("total {} {:?}\n", e.total, e.by_kind);
    for i in &e.entries {
        if i.kind == "public_api" {
            continue;
        }
        out.push_str(&format!(
            "  {:<8} {}{}\n",
            i.kind,
            i.node.qualified_name,
            i.detail
                .as_ref()
                .map(|d| format!(" [{d}]"))
                .unwrap_or_default()
        ));
    }
    out
}

#[test]
fn entry_points_by_kind() {
    let ix = indexed(FIXTURE, None);
    check(
        &entry_text(&ix.repo.entry_points(100).unwrap()),
        r#"
total 23 [("main", 1), ("script", 1), ("route", 1), ("cli", 1), ("test", 1), ("public_api", 18)]
  main     app.cli.main
  script   app/cli.py [if __name__ == "__main__"]
  route    app.web.items [@app.route]
  cli      app.cli.run [@click.command]
  test     test_service.test_handle
"#,
    );
}

fn flow_text(f: &Flows) -> String {
    let mut out = String::new();
    for s in &f.steps {
        out.push_str(&format!(
            "{}{} ({})\n",
            "  ".repeat(s.depth as usize),
            s.node.qualified_name,
            s.edge
        ));
    }
    out
}

#[test]
fn flows_list_entry_points_and_walk_their_call_trees() {
    let ix = indexed(FIXTURE, None);
    let list = ix.repo.flows(None, 5, 10).unwrap();
    let summary: Vec<(&str, &str, usize)> = list
        .flows
        .iter()
        .map(|f| (f.kind, f.entry.qualified_name.as_str(), f.reached))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("script", "app/cli.py", 10),
            ("main", "app.cli.main", 10),
            ("cli", "app.cli.run", 9),
            ("route", "app.web.items", 9),
        ]
    );
    let tree = ix.repo.flows(Some("items"), 5, 100).unwrap();
    assert_eq!(tree.entry.as_ref().unwrap().qualified_name, "app.web.items");
    check(
        &flow_text(&tree),
        "
app.web.items (calls)
  app.service.handle (calls)
    app.core.classify (calls)
    app.events.emit (calls)
      app.service.notify (calls)
    app.service.make (calls)
      app.core.Repository (instantiates)
        app.core.Repository.__init__ (constructor)
    lib.util.helper (calls)
",
    );
    // Depth and limit cut the tree.
    let shallow = ix.repo.flows(Some("app.web.items"), 1, 100).unwrap();
    assert_eq!(
        tree.edge_kinds,
        vec!["calls", "instantiates", "constructor"]
    );
    assert_eq!(shallow.steps.len(), 2);
    let cut = ix.repo.flows(Some("items"), 5, 3).unwrap();
    assert_eq!(cut.steps.len(), 3);
    assert!(cut.truncated);
    // Any symbol can start a flow; unknown names fail with suggestions.
    // make -> Repository -> Repository.__init__.
    let any = ix.repo.flows(Some("app.service.make"), 5, 100).unwrap();
    assert_eq!(any.steps.len(), 3);
    assert!(matches!(
        ix.repo.flows(Some("no_such_entry"), 5, 100),
        Err(Error::Symbol(_))
    ));
}

fn dead_text(d: &DeadCode) -> String {
    let mut out = format!(
        "candidates {} entry {} referenced {} dead {} unknown {} share {}\n",
        d.candidates, d.entry_points, d.referenced, d.dead_count, d.unknown_count, d.unknown_share
    );
    for i in d.dead.iter().chain(&d.unknown) {
        out.push_str(&format!(
            "  {:<7} {:<40} {}{}\n",
            i.status,
            i.node.qualified_name,
            i.reason,
            i.detail
                .as_ref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default()
        ));
    }
    out
}

#[test]
fn dead_code_is_said_only_when_sure() {
    let ix = indexed(FIXTURE, None);
    let d = ix.repo.dead_code(&[], 100).unwrap();
    check(
        &dead_text(&d),
        "
candidates 32 entry 21 referenced 2 dead 4 unknown 5 share 0.556
  dead    app.core.Repository._unused_helper       unreferenced
  dead    app.core._orphan                         unreferenced
  dead    app.mixins.MergeMixin._merge             unreferenced
  dead    lib.util._private_unused                 unreferenced
  unknown app.core._called_somehow                 unresolved_reference (an unresolved python reference thing._called_somehow in app/dynamic.py (no_candidates))
  unknown app.dynamic._target                      reflection (app/dynamic.py)
  unknown app.mixins.MergeMixin._shown_in_template mentioned (_shown_in_template written 1 times outside its definitions)
  unknown app.web._guarded                         decorated (@login_required)
  unknown lib.util._wrapped                        rebound (lib.util._wrapped)
",
    );
    assert_eq!(
        d.unknown_by_reason,
        vec![
            ("decorated".to_string(), 1),
            ("mentioned".to_string(), 1),
            ("rebound".to_string(), 1),
            ("reflection".to_string(), 1),
            ("unresolved_reference".to_string(), 1)
        ]
    );
    assert!(d.rules.exported_is_live);
    assert_eq!(d.config_file, None);
    // Only methods.
    // `MergeMixin._merge` shares its name with the called `Base._merge`, but no type derives
    // from both: the call cannot dispatch to it.
    let methods = ix.repo.dead_code(&["method".into()], 100).unwrap();
    assert_eq!(methods.dead.len(), 2);
    assert_eq!(methods.dead[0].node.name, "_unused_helper");
}

#[test]
fn dead_code_rules_come_from_the_repository_configuration() {
    let config = r#"
[dead_code]
live_names = ["_orphan"]
live_paths = ["lib/**"]
exported_is_live = false
"#;
    let ix = indexed(FIXTURE, Some(config));
    let d = ix.repo.dead_code(&[], 100).unwrap();
    let dead: Vec<&str> = d
        .dead
        .iter()
        .map(|i| i.node.qualified_name.as_str())
        .collect();
    // _orphan and everything under lib/ are live; public code nothing uses is now dead.
    assert!(!dead.contains(&"app.core._orphan"), "{dead:?}");
    assert!(!dead.contains(&"lib.util._private_unused"), "{dead:?}");
    assert!(!dead.contains(&"lib.util.public_unused"), "{dead:?}");
    assert!(
        dead.contains(&"app.core.Repository._unused_helper"),
        "{dead:?}"
    );
    assert!(!d.rules.exported_is_live);
    assert!(d.config_file.is_some());
    let e = ix.repo.entry_points(100).unwrap();
    assert!(
        e.entries
            .iter()
            .any(|i| i.kind == "configured" && i.node.qualified_name == "app.core._orphan")
    );
    assert!(e.entries.iter().all(|i| i.kind != "public_api"));

    // Without live_paths, a public function nothing uses is dead.
    let ix = indexed(FIXTURE, Some("[dead_code]\nexported_is_live = false\n"));
    let d = ix.repo.dead_code(&[], 100).unwrap();
    assert!(
        d.dead
            .iter()
            .any(|i| i.node.qualified_name == "lib.util.public_unused"),
        "{}",
        dead_text(&d)
    );
    // By default the public API is live.
    let ix = indexed(FIXTURE, None);
    let d = ix.repo.dead_code(&[], 100).unwrap();
    assert!(
        !d.dead
            .iter()
            .any(|i| i.node.qualified_name == "lib.util.public_unused")
    );
}

#[test]
fn a_bad_configuration_names_the_file() {
    let ix = indexed(FIXTURE, Some("[dead_code]\nlive_nams = [\"x\"]\n"));
    let e = ix.repo.dead_code(&[], 10).unwrap_err().to_string();
    assert!(e.contains(".sextant.toml"), "{e}");
    assert!(e.contains("live_nams"), "{e}");
    let ix = indexed(FIXTURE, Some("[dead_code]\nlive_names = [\"[\"]\n"));
    assert!(ix.repo.dead_code(&[], 10).is_err());
}

#[test]
fn complexity_lists_the_most_complex_functions_with_totals() {
    let ix = indexed(FIXTURE, None);
    let c = ix.repo.complexity(3, None).unwrap();
    assert_eq!(c.most_complex[0].node.qualified_name, "app.core.classify");
    assert_eq!(c.most_complex[0].complexity, 7);
    assert_eq!(c.most_complex[0].lines, 11);
    assert_eq!(c.files[0].path, "app/core.py");
    assert_eq!(c.targets[0].path, "app");
    assert_eq!(c.functions, 30);
    let lib = ix.repo.complexity(10, Some("lib/")).unwrap();
    assert_eq!(lib.path_prefix.as_deref(), Some("lib"));
    assert_eq!(lib.functions, 4);
    assert!(lib.files.iter().all(|f| f.path.starts_with("lib/")));
}

#[test]
fn architecture_layers_coupling_and_hotspots() {
    let ix = indexed(FIXTURE, None);
    let a = ix.repo.architecture(5).unwrap();
    assert_eq!(a.modules, 2);
    assert_eq!(a.cycles, vec![vec!["app".to_string(), "lib".to_string()]]);
    // app and lib depend on each other: one level.
    assert_eq!(a.layers.len(), 1);
    assert_eq!(a.layers[0].modules, vec!["app", "lib"]);
    assert_eq!(a.coupled[0].fan_in + a.coupled[0].fan_out, 2);
    assert_eq!(a.hotspots[0].node.qualified_name, "app.core.classify");
    assert!(a.hotspots[0].score > a.hotspots[1].score);
}

#[test]
fn schema_counts_labels_and_relationship_types() {
    let ix = indexed(FIXTURE, None);
    let s = ix.repo.schema().unwrap();
    let label = |n: &str| s.node_labels.iter().find(|l| l.name == n).map(|l| l.count);
    assert_eq!(label("File"), Some(11));
    assert_eq!(label("Class"), Some(3));
    assert_eq!(label("Function"), Some(21));
    let rel = |n: &str| {
        s.relationship_types
            .iter()
            .find(|l| l.name == n)
            .map(|l| l.count)
    };
    assert_eq!(rel("CALLS"), Some(15));
    assert_eq!(rel("INSTANTIATES"), Some(2));
    assert!(rel("CONTAINS").is_some());
    assert!(s.node_properties.contains(&"qualified_name"));
    assert!(s.relationship_properties.contains(&"provenance"));
    assert_eq!(
        s.nodes,
        s.node_labels.iter().map(|l| l.count).sum::<usize>()
    );
}

#[test]
fn the_graph_is_loaded_once_per_generation() {
    let ix = indexed(FIXTURE, None);
    let a = ix.repo.graph().unwrap();
    let b = Repo::open_in(&ix.home, &ix.root).unwrap().graph().unwrap();
    assert!(std::sync::Arc::ptr_eq(&a, &b));
    assert_eq!(a.len(), 46);
}

#[test]
fn query_rows_render_nodes_as_objects() {
    let ix = indexed(FIXTURE, None);
    let q = ix
        .repo
        .query(
            "MATCH (a)-[:CALLS]->(b {name: 'handle'}) RETURN a.qualified_name AS caller, b ORDER BY caller",
            100,
            1 << 20,
            Some(Duration::from_secs(10)),
        )
        .unwrap();
    assert_eq!(q.columns, vec!["caller", "b"]);
    let callers: Vec<&str> = q.rows.iter().map(|r| r[0].as_str().unwrap()).collect();
    assert_eq!(
        callers,
        vec![
            "app.cli.run",
            "app.service.notify",
            "app.web.items",
            "test_service.test_handle"
        ]
    );
    let b = &q.rows[0][1];
    assert_eq!(b["qualified_name"], "app.service.handle");
    assert_eq!(b["kind"], "function");
    assert_eq!(b["path"], "app/service.py");
    assert!(b["id"].as_str().unwrap().starts_with("sym_"));
    assert!(!q.truncated);
    assert!(q.output_truncated.is_none());
    assert_eq!(q.text.len(), 4);
}

#[test]
fn query_truncation_keeps_whole_rows_and_says_so() {
    let ix = indexed(FIXTURE, None);
    // max_rows
    let q = ix
        .repo
        .query("MATCH (n) RETURN n.name", 3, 1 << 20, None)
        .unwrap();
    assert_eq!(q.rows.len(), 3);
    assert!(q.truncated);
    // max_output_bytes: whole rows kept, metadata about the rest, valid JSON throughout.
    let q = ix
        .repo
        .query("MATCH (n) RETURN n", 1000, 1000, None)
        .unwrap();
    let t = q.output_truncated.as_ref().expect("over the byte cap");
    assert_eq!(t.rows_total, 46);
    assert!(t.rows_kept < t.rows_total);
    assert_eq!(q.rows.len(), t.rows_kept);
    assert!(t.bytes > 1000);
    assert!(t.hint.contains("LIMIT"));
    let json = serde_json::to_string(&q).unwrap();
    assert!(json.len() < 2000, "{}", json.len());
    let back: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(back["output_truncated"]["rows_kept"], t.rows_kept);
}

#[test]
fn query_errors_point_at_the_position() {
    let ix = indexed(FIXTURE, None);
    let e = ix
        .repo
        .query("MATCH (n:Function RETURN n", 10, 1 << 20, None)
        .unwrap_err();
    let Error::Query(q) = &e else { panic!("{e}") };
    assert_eq!(q.kind, "syntax");
    assert_eq!(q.line, 1);
    assert!(e.to_string().contains('^'), "{e}");
    let e = ix
        .repo
        .query("MATCH (n:Galaxy) RETURN n", 10, 1 << 20, None)
        .unwrap_err();
    assert!(matches!(&e, Error::Query(q) if q.kind == "unknown"), "{e}");
    let e = ix
        .repo
        .query("CREATE (n:Function) RETURN n", 10, 1 << 20, None)
        .unwrap_err();
    assert!(matches!(&e, Error::Query(_)), "{e}");
}

/// A declared override (`@override`, `@typing.override`) is never reported dead: the base that
/// calls it may be a framework outside the repository (FlaskBB's SQLAlchemy TypeDecorator hooks).
#[test]
fn declared_overrides_are_unknown_not_dead() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("app")).unwrap();
    std::fs::write(
        root.join("app/db.py"),
        "import typing as t\nfrom sqlalchemy import types\n\n\nclass UTCDateTime(types.TypeDecorator[object]):\n    @t.override\n    def process_bind_param(self, value, dialect):\n        return value\n\n\ndef _never_called():\n    return 1\n",
    )
    .unwrap();
    std::fs::write(
        root.join(".sextant.toml"),
        "[dead_code]\nexported_is_live = false\n",
    )
    .unwrap();
    let options = IndexOptions {
        home: Some(home.path().to_path_buf()),
        ..IndexOptions::default()
    };
    sextant_engine::index(root, &options, &|_| {}).unwrap();
    let repo = Repo::open_in(home.path(), root).unwrap();
    let report = repo.dead_code(&[], 100).unwrap();
    let dead: Vec<&str> = report.dead.iter().map(|d| d.node.name.as_str()).collect();
    assert!(!dead.contains(&"process_bind_param"), "{dead:?}");
    assert!(
        report
            .unknown
            .iter()
            .any(|u| u.node.name == "process_bind_param" && u.reason == "override"),
        "{:?}",
        report.unknown
    );
}

/// The dead-code rules weigh what is known of each same-name use: a typed receiver, `self` in
/// an unrelated class, a plain name imported from outside, a name written only in a comment or
/// prose do not keep a definition alive; an unknown receiver, `self` in a related class, a
/// guessed dispatch, a name in a string or template do.
const RULES: &str = r#"
//- /app/__init__.py
//- /app/models.py
import json
from hashlib import sha256

from flask import g


class Store:
    def save(self):
        return 1

    def _flush(self):
        return 2


class Cache:
    def get_item(self):
        return self._flush()


class Base:
    def run(self):
        return self.hook()


class Impl(Base):
    def hook(self):
        return 3


class Audit:
    def hook(self):
        return 10


class Audited(Audit, Base):
    pass


class Mailer:
    def send(self):
        return 4


class Sms:
    def send(self):
        return 5


class Digest:
    def sha256(self):
        return 6


class Codec:
    def dumps(self):
        return 11

    def flush_all(self):
        return 12


def encode(x):
    return json.dumps(x)


def flush():
    return g.codec.flush_all()


def fingerprint(data):
    # _legacy() used to be called here
    return sha256(data)


def _legacy():
    return 7


def _by_path():
    return 8


def build():
    return Engine()


class Engine:
    def __init__(self):
        self.start()

    def start(self):
        return 9
//- /app/settings.py
HANDLER = "app.models._by_path"
//- /app/relay.py
class Pigeon:
    def deliver(self):
        return 1


def relay(channel):
    return channel.deliver()
//- /lib/__init__.py
//- /lib/courier.py
class Courier:
    def deliver(self):
        return 2
//- /app/main.py
import argparse

from app.models import Base, Cache, Codec, Impl, Mailer, Sms, Store, build, encode, fingerprint, flush
from app.relay import Pigeon, relay
from lib.courier import Courier


def cmd_run(args):
    return 1


def notify():
    m = Mailer()
    m.send()
    Sms()
    Store().save()
    Cache().get_item()
    Impl().run()
    relay(Pigeon())
    Courier()
    build()
    Codec()
    encode(1)
    flush()
    return fingerprint(b"x")


def parser():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers()
    run = sub.add_parser("run")
    run.set_defaults(func=cmd_run)
    return p


if __name__ == "__main__":
    notify()
    parser()
//- /app/migrations/versions/1a2b_add_table.py
def upgrade():
    return 1


def downgrade():
    return 0


def _unused_in_migration():
    return 2
//- /docs/notes.md
_legacy was removed; see Digest.sha256 and Sms.send.
"#;

#[test]
fn dead_code_weighs_each_use_by_receiver_kind_and_place() {
    let ix = indexed(RULES, Some("[dead_code]\nexported_is_live = false\n"));
    let d = ix.repo.dead_code(&[], 100).unwrap();
    // `Sms.send`: the only `send` call is on a `Mailer`. `Digest.sha256`: the only `sha256`
    // use is the plain name imported from hashlib. `Codec.dumps`: the only `dumps` is
    // `json.dumps` (a module from outside); `Codec.flush_all` stays unknown: `g.codec` is an
    // attribute of an outside object and may hold a `Codec`. `_legacy`: written only in a comment and in
    // docs/notes.md. `_by_path`: written in a string in settings.py. `Courier.deliver`: the
    // `deliver` call's receiver is unknown (it was guessed to be the visible `Pigeon.deliver`).
    check(
        &dead_text(&d),
        "
candidates 40 entry 3 referenced 27 dead 6 unknown 4 share 0.4
  dead    app.migrations.versions.1a2b_add_table._unused_in_migration unreferenced
  dead    app.models.Sms.send                      unreferenced
  dead    app.models.Digest                        unreferenced
  dead    app.models.Digest.sha256                 unreferenced
  dead    app.models.Codec.dumps                   unreferenced
  dead    app.models._legacy                       unreferenced
  unknown app.models.Audited                       subclass (app.models.Base)
  unknown app.models.Codec.flush_all               unresolved_reference (an unresolved python reference g.codec.flush_all in app/models.py (external))
  unknown app.models._by_path                      mentioned (_by_path written 1 times outside its definitions)
  unknown lib.courier.Courier.deliver              polymorphic (app.relay.Pigeon.deliver)
",
    );
}

#[test]
fn registrations_and_migrations_are_entry_points_and_flows_enter_constructors() {
    let ix = indexed(RULES, Some("[dead_code]\nexported_is_live = false\n"));
    check(
        &entry_text(&ix.repo.entry_points(100).unwrap()),
        r#"
total 4 [("script", 1), ("cli", 1), ("handler", 2)]
  script   app/main.py [if __name__ == "__main__"]
  cli      app.main.cmd_run [set_defaults(...)]
  handler  app.migrations.versions.1a2b_add_table.upgrade [alembic revision]
  handler  app.migrations.versions.1a2b_add_table.downgrade [alembic revision]
"#,
    );
    // `Engine()` runs `Engine.__init__`, which calls `start`.
    let tree = ix.repo.flows(Some("app.models.build"), 5, 100).unwrap();
    check(
        &flow_text(&tree),
        "
app.models.build (calls)
  app.models.Engine (instantiates)
    app.models.Engine.__init__ (constructor)
      app.models.Engine.start (calls)
",
    );
}

/// TypeScript: in an application, an export nothing imports is dead unless `package.json`
/// publishes its file (an `export { a as b }` clause counts) or the file is loaded with
/// `import("...")` (with an `export default`, everything in it); default exports, interfaces
/// declared twice or inside `declare module` (augmentation) and methods named like a used
/// interface member (structural typing) stay unknown; a method named like a member of an
/// interface nothing uses (`Dog.walk`, `Walker`) is dead; a commented-out call is no use.
const TS_RULES: &str = r#"
//- /package.json
{"name": "app", "exports": {".": "./dist/src/index.js", "./types": "./dist/src/types.js", "./alias": "./dist/src/alias.js"}}
//- /src/alias.ts
function _void(): number {
  return 0;
}

function _hidden(): number {
  return 1;
}

export { _void as void };
//- /src/lazy.ts
export function lazyThing(): number {
  return 1;
}

export function lazyOther(): number {
  return 2;
}

function lazyPrivate(): number {
  return 3;
}
//- /src/handlers.ts
export default async () => ({
  async newConnection(): Promise<number> {
    return 1;
  },
});
//- /src/boot.ts
export default function boot(): number {
  return 1;
}
//- /src/index.ts
import { helper } from "./internal.js";
import { run } from "./greet.js";

export function api(): number {
  run();
  return helper();
}

export function publishedButUnused(): number {
  return 1;
}

export async function later(): Promise<number> {
  const { lazyThing } = await import("./lazy.js");
  const handlers = () => import("./handlers.js");
  return lazyThing() + (handlers ? 1 : 0);
}
//- /src/internal.ts
export function helper(): number {
  // orphanExport();
  return 2;
}

export function orphanExport(): number {
  return 3;
}
//- /src/types.ts
export interface Config {
  name: string;
}
//- /src/augment.ts
declare module "./types.js" {
  interface Config {
    extra: number;
  }
}
export {};
//- /src/greet.ts
export interface Greeter {
  greet(): void;
}

export class Hello {
  greet(): void {}
}

class Loner {
  wave(): void {}
}

interface Walker {
  walk(): void;
}

class Dog {
  walk(): void {}
}

export class Caller {
  wave(): void {}
}

function use(g: Greeter): void {
  g.greet();
}

export function run(): void {
  use(new Hello());
  new Loner();
  new Dog();
  new Caller().wave();
}
"#;

#[test]
fn typescript_exports_are_dead_in_an_application_unless_published() {
    let ix = indexed(TS_RULES, Some("[dead_code]\nexported_is_live = false\n"));
    let d = ix.repo.dead_code(&[], 100).unwrap();
    check(
        &dead_text(&d),
        "
candidates 26 entry 0 referenced 9 dead 5 unknown 12 share 0.706
  dead    src/greet.Loner.wave                     unreferenced
  dead    src/greet.Walker                         unreferenced
  dead    src/greet.Dog.walk                       unreferenced
  dead    src/internal.orphanExport                unreferenced
  dead    src/lazy.lazyPrivate                     unreferenced
  unknown src/alias._void                          exported
  unknown src/alias._hidden                        script_global
  unknown src/augment../types.js.Config            augmentation (src/augment../types.js)
  unknown src/boot.boot                            default_export
  unknown src/greet.Hello.greet                    polymorphic (src/greet.Greeter.greet)
  unknown src/handlers.newConnection               object_member
  unknown src.api                                  exported
  unknown src.publishedButUnused                   exported
  unknown src.later                                exported
  unknown src/lazy.lazyThing                       dynamic_import (src/lazy.ts)
  unknown src/lazy.lazyOther                       dynamic_import (src/lazy.ts)
  unknown src/types.Config                         merged (interface Config is declared more than once)
",
    );
    // With the defaults every export is public API.
    let ix = indexed(TS_RULES, None);
    let d = ix.repo.dead_code(&[], 100).unwrap();
    assert!(
        !d.dead
            .iter()
            .any(|i| i.node.qualified_name == "src/internal.orphanExport"),
        "{}",
        dead_text(&d)
    );
}

/// Django and dispatch (issue 6, pretix): a form's `clean_<field>` is a hook, its other methods
/// are the application's; a class named only in settings keeps its methods; a mixin combined with
/// an outside base keeps its methods; `class Migration` in `migrations/` is an entry point; an
/// override of a method nothing calls is dead; `other.warm()` inside `warm` is no use of it; a
/// method named like a member of a used `typing.Protocol` is structural; `getattr(x, "literal")`
/// is no reflection, `getattr(x, name)` is.
const DJANGO_RULES: &str = r#"
//- /app/__init__.py
//- /app/forms.py
from django import forms


class SignupForm(forms.Form):
    def clean_email(self):
        return 1

    def _unused_helper(self):
        return 2
//- /app/db.py
from django.db import models


class Router:
    def db_for_read(self, model):
        return None


class IgnoreMixin:
    def create_sql(self):
        return 1


class Index(IgnoreMixin, models.Index):
    pass


def make_index():
    return Index()
//- /app/settings.py
DATABASE_ROUTERS = ["app.db.Router"]
//- /app/migrations/__init__.py
//- /app/migrations/0001_initial.py
from django.db import migrations


class Migration(migrations.Migration):
    operations = []
//- /app/shapes.py
class Shape:
    def area(self):
        return 0

    def describe(self):
        return self.area()


class Square(Shape):
    def area(self):
        return 1


class Renderer:
    def render(self):
        return 1


class Fancy(Renderer):
    def render(self):
        return 2


def build():
    return Square(), Fancy()
//- /app/lookup.py
def fixed(obj):
    return getattr(obj, "name", None)


def _fixed_unused():
    return 1
//- /app/limits.py
from typing import Protocol


class Limiter(Protocol):
    def allowed(self, key):
        ...


class MemoryLimiter:
    def allowed(self, key):
        return True


class Cache:
    def warm(self, other):
        return other.warm()


def make_limiter() -> Limiter:
    return MemoryLimiter()


def check(limiter: Limiter):
    return limiter.allowed("k")
//- /app/dynamic.py
def computed(obj, attr):
    return getattr(obj, attr)


def _dynamic_unused():
    return 1
//- /tests/test_shapes.py
from app.shapes import Shape, build
from app.lookup import fixed
from app.dynamic import computed
from app.db import make_index
from app.limits import Cache, check, make_limiter


def test_describe():
    assert Shape().describe() == 0
    assert build() and fixed(1) is None and computed(1, "x") and make_index()
    assert check(make_limiter()) and Cache()
"#;

#[test]
fn django_conventions_mixins_and_overrides_of_dead_methods() {
    let ix = indexed(
        DJANGO_RULES,
        Some("[dead_code]\nexported_is_live = false\n"),
    );
    let d = ix.repo.dead_code(&[], 100).unwrap();
    check(
        &dead_text(&d),
        "
candidates 33 entry 2 referenced 19 dead 4 unknown 8 share 0.667
  dead    app.forms.SignupForm._unused_helper      unreferenced
  dead    app.limits.Cache.warm                    unreferenced
  dead    app.lookup._fixed_unused                 unreferenced
  dead    app.shapes.Fancy.render                  unreferenced
  unknown app.db.Router                            mentioned (Router written 1 times outside its definitions)
  unknown app.db.Router.db_for_read                mentioned (its class Router written 1 times outside its definitions)
  unknown app.db.IgnoreMixin.create_sql            external_base (mixed into app.db.Index)
  unknown app.dynamic._dynamic_unused              reflection (app/dynamic.py)
  unknown app.forms.SignupForm                     external_base
  unknown app.forms.SignupForm.clean_email         external_base (app.forms.SignupForm)
  unknown app.limits.MemoryLimiter.allowed         structural (an interface declares a member allowed)
  unknown app.shapes.Square.area                   override (app.shapes.Shape.area)
",
    );
    let e = ix.repo.entry_points(100).unwrap();
    assert!(
        e.entries.iter().any(
            |i| i.node.qualified_name.ends_with("0001_initial.Migration")
                && i.detail.as_deref() == Some("django migration")
        ),
        "{}",
        entry_text(&e)
    );
}

/// TypeScript (issue 6, Theia): a method of an object literal (`bind({ onStart() {} })`), the
/// members of a class handed over as a value (`{ Position }`), and an export imported through
/// a path alias (`~/api`), and the members of a class named like an outside type the code uses
/// (`theia.Logger`) stay unknown; an override of an interface member nothing calls is dead.
const TS_MORE_RULES: &str = r#"
//- /package.json
{"name": "app2"}
//- /src/vite-env.d.ts
interface ImportMeta {
  readonly env: Record<string, string>;
}
//- /src/table.ts
const defaultExpand = (): boolean => false;

export function makeTable({ expand = defaultExpand } = {}): boolean {
  return expand();
}

makeTable();
//- /src/module.ts
export function register(bind: (x: object) => void): void {
  bind({
    onStart(): void {},
  });
}
//- /src/api.ts
export class Position {
  isAfter(): boolean {
    return true;
  }
}

export class Lonely {
  unusedMethod(): number {
    return 1;
  }
}

export function createApi(): object {
  return { Position };
}
//- /src/widget/api.ts
export function fetchList(): number {
  return 1;
}
//- /src/widget/main.ts
import { fetchList } from "~/api";

fetchList();
//- /src/telemetry.ts
import * as theia from "@theia/plugin";

export class Logger {
  logUsage(): void {}
}

export function createLogger(): theia.Logger {
  return new Logger();
}
//- /src/rpc.ts
export interface Main {
  $ping(): void;
  $used(): void;
}

export class MainImpl implements Main {
  $ping(): void {}
  $used(): void {}
}

export function make(): void {
  const m: Main = new MainImpl();
  m.$used();
}
"#;

#[test]
fn typescript_object_members_escaping_classes_aliases_and_uncalled_interfaces() {
    let ix = indexed(
        TS_MORE_RULES,
        Some("[dead_code]\nexported_is_live = false\n"),
    );
    let d = ix.repo.dead_code(&[], 100).unwrap();
    check(
        &dead_text(&d),
        "
candidates 19 entry 0 referenced 7 dead 7 unknown 5 share 0.417
  dead    src/api.Lonely                           unreferenced
  dead    src/api.Lonely.unusedMethod              unreferenced
  dead    src/api.createApi                        unreferenced
  dead    src/module.register                      unreferenced
  dead    src/rpc.MainImpl.$ping                   unreferenced
  dead    src/rpc.make                             unreferenced
  dead    src/telemetry.createLogger               unreferenced
  unknown src/api.Position.isAfter                 escaping (Position is stored in an object literal)
  unknown src/module.register.onStart              object_member
  unknown src/telemetry.Logger.logUsage            structural (an outside type theia.Logger has its class's name)
  unknown src/vite-env.d.ImportMeta                augmentation (src/vite-env.d.ts declares it globally)
  unknown src/widget/api.fetchList                 path_alias (imported from \"~/api\")
",
    );
}
