//! `Repo::evaluate` against a hand-built SCIP index of a small Python repository: every outcome
//! (top-1, abstained, wrong, not extracted, false positive, not scored) is produced by a known
//! site, so each counter is checked against what the fixture makes it.

use sextant_engine::{IndexOptions, Repo, ScipIndex};
use sextant_scip::{Document, Occurrence};

const A: &str = "\
def helper():
    pass


class Store:
    def fetch(self):
        return helper()
";

// `s.fetch()` on an untyped parameter: two `fetch` methods exist, so Sextant abstains (ambiguous);
// `len` is a builtin: SCIP says external, and no local `len` exists, so no edge.
const B: &str = "\
from pkg.a import Store, helper


class Cache:
    def fetch(self):
        return 1


def run(s, flag):
    helper()
    Store().fetch()
    s.fetch()
    return len([flag])
";

const P: &str = "scip-python python pkg 0.1";

fn occ(line: u32, col: u32, len: u32, symbol: &str, definition: bool) -> Occurrence {
    Occurrence {
        line,
        col,
        end_line: line,
        end_col: col + len,
        symbol: symbol.to_string(),
        definition,
    }
}

fn index() -> ScipIndex {
    let helper = format!("{P} `pkg.a`/helper().");
    let store = format!("{P} `pkg.a`/Store#");
    let store_get = format!("{P} `pkg.a`/Store#fetch().");
    let cache_get = format!("{P} `pkg.b`/Cache#fetch().");
    let cache = format!("{P} `pkg.b`/Cache#");
    let run = format!("{P} `pkg.b`/run().");
    let param = format!("{P} `pkg.b`/run().(flag)");
    let len = "scip-python python python-stdlib 3.11 builtins/len().".to_string();
    ScipIndex {
        tool: "scip-python".into(),
        tool_version: "test".into(),
        project_root: String::new(),
        documents: vec![
            Document {
                path: "pkg/a.py".into(),
                language: "python".into(),
                utf16: false,
                occurrences: vec![
                    occ(1, 4, 6, &helper, true),
                    occ(5, 6, 5, &store, true),
                    occ(6, 8, 5, &store_get, true),
                    occ(7, 15, 6, &helper, false), // top1
                ],
            },
            Document {
                path: "pkg/b.py".into(),
                language: "python".into(),
                utf16: false,
                occurrences: vec![
                    occ(1, 18, 5, &store, false),  // import site
                    occ(1, 25, 6, &helper, false), // import site
                    occ(4, 6, 5, &cache, true),
                    occ(5, 8, 5, &cache_get, true),
                    occ(9, 4, 3, &run, true),
                    occ(9, 11, 4, &param, true),
                    occ(10, 4, 6, &helper, false),     // top1 (call)
                    occ(11, 4, 5, &store, false),      // top1 (instantiate)
                    occ(11, 12, 5, &store_get, false), // receiver typed by constructor
                    occ(12, 6, 5, &store_get, false),  // abstained: ambiguous `fetch`
                    occ(13, 11, 3, &len, false),       // external: not scored, no edge
                    occ(13, 16, 4, &param, false),     // parameter: not scored
                    occ(13, 30, 5, &cache_get, false), // no reference there: not extracted
                ],
            },
            Document {
                path: "missing.py".into(),
                language: "python".into(),
                utf16: false,
                occurrences: vec![occ(1, 0, 1, &format!("{P} missing/x."), true)],
            },
        ],
    }
}

#[test]
fn scores_every_outcome() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("repo");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(dir.join("pkg")).unwrap();
    std::fs::write(dir.join("pkg/__init__.py"), "").unwrap();
    std::fs::write(dir.join("pkg/a.py"), A).unwrap();
    std::fs::write(dir.join("pkg/b.py"), B).unwrap();
    let options = IndexOptions {
        home: Some(home.clone()),
        threads: 1,
        ..IndexOptions::default()
    };
    sextant_engine::index(&dir, &options, &|_| {}).unwrap();
    let repo = Repo::open_in(&home, &dir).unwrap();
    let report = repo.evaluate(&index(), 25).unwrap();

    let c = &report.corpus;
    assert_eq!((c.scip_documents, c.documents_matched), (3, 2));
    // helper, Store, Store.get, Cache, Cache.get, run mapped; the parameter is not a definition
    // kind; missing/x is in no indexed file.
    assert_eq!((c.symbols_defined, c.symbols_mapped), (8, 6));
    assert_eq!(c.sites_external, 1, "len");
    assert_eq!(c.sites_not_scored, 1, "flag (a parameter)");

    let py = &report.languages["python"];
    assert_eq!(py.files, 2);
    assert_eq!(py.symbols, 6);
    let d = &py.definition;
    let samples: Vec<String> = report
        .samples
        .iter()
        .map(|s| {
            format!(
                "{} {}:{} {} -> {:?} ({})",
                s.outcome, s.path, s.line, s.expected, s.got, s.why
            )
        })
        .collect();
    assert_eq!(d.sites, 7, "{samples:#?}");
    assert_eq!(py.not_extracted, 1, "{samples:#?}");
    assert_eq!(d.top1 + d.abstained + d.wrong, d.sites);
    assert_eq!(d.abstained, 1, "{samples:#?}");
    assert_eq!(d.top1, 6, "{samples:#?}");
    assert_eq!(
        d.in_candidates, 7,
        "the ambiguous site lists the truth among its candidates"
    );
    assert_eq!(py.by_ref_kind["import"].sites, 2);
    // Callers truth: helper() in a.py and b.py, Store().fetch(), s.fetch(), and the unextracted
    // Cache.get site (import sites excluded). All but the last two found by a `calls` edge.
    assert_eq!(py.callers.truth, 5, "{samples:#?}");
    assert_eq!(py.callers.truth_found, 4, "{samples:#?}");
    assert!(
        py.callers.precision() < 1.0,
        "the ambiguous edge to Cache.get is imprecise"
    );
    assert_eq!(py.callers.claimed_precision(), 1.0);
    assert!(report.samples.iter().any(|s| s.outcome == "not_extracted"));
}

/// `index --scip`: the index's answers replace the heuristic ones where it covers a site; the
/// rest of the graph stays heuristic.
#[test]
fn scip_answers_replace_heuristic_ones() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("repo");
    let home = tmp.path().join("home");
    std::fs::create_dir_all(dir.join("pkg")).unwrap();
    std::fs::write(dir.join("pkg/__init__.py"), "").unwrap();
    std::fs::write(dir.join("pkg/a.py"), A).unwrap();
    std::fs::write(dir.join("pkg/b.py"), B).unwrap();
    let scip = tmp.path().join("index.scip");
    std::fs::write(&scip, sextant_scip::encode(&index())).unwrap();
    let options = IndexOptions {
        home: Some(home.clone()),
        threads: 1,
        scip: Some(scip.clone()),
        ..IndexOptions::default()
    };
    let summary = sextant_engine::index(&dir, &options, &|_| {}).unwrap();
    let merged = summary.scip.expect("a SCIP summary");
    assert_eq!(merged.documents_matched, 2);
    // Every reference site with a mapped symbol: helper() in a.py, helper(), Store(),
    // Store().fetch(), s.fetch() (ambiguous before, asserted now). Import statements keep their
    // own edges.
    assert_eq!(merged.sites_asserted, 5);
    assert!(merged.sites_changed >= 1, "{merged:?}");
    assert_eq!(merged.sites_external, 1, "len");

    let repo = Repo::open_in(&home, &dir).unwrap();
    let edges = repo.edge_lines().unwrap();
    let fetch: Vec<&String> = edges.iter().filter(|l| l.contains("pkg/b.py:12")).collect();
    assert_eq!(fetch.len(), 1, "{edges:#?}");
    assert!(
        fetch[0].contains("calls/asserted/scip-> pkg.a.Store.fetch"),
        "{fetch:?}"
    );
    let unresolved = repo.unresolved_lines().unwrap();
    assert!(
        unresolved
            .iter()
            .any(|l| l.contains("pkg/b.py:13 len [external]")),
        "{unresolved:#?}"
    );
    // A SCIP file that is not one fails before anything is written.
    std::fs::write(&scip, b"not protobuf at all \xff\xff").unwrap();
    let err = sextant_engine::index(&dir, &options, &|_| {}).unwrap_err();
    assert!(err.to_string().contains("not a SCIP index"), "{err}");
}
