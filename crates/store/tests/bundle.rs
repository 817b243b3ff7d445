//! Baseline files on real SQLite files: export a published generation, import it into another
//! database (empty, or with rows of its own), refuse foreign, other-version, truncated and corrupt
//! files without changing anything; pins keep generations through garbage collection.

use std::path::Path;

use sextant_model::{Confidence, EdgeKind, NodeKind, Provenance, RefKind, Span, Visibility};
use sextant_store::{
    BundleExpect, EdgeRow, FileVersionRow, NewNode, Pin, RefRow, SearchFilters, Store, StoreError,
    UnresolvedRow, read_bundle_info,
};

fn node(id: i64, file_id: i64, kind: NodeKind, name: &str, parent: Option<i64>) -> NewNode {
    NewNode {
        id,
        file_id,
        stable_id: format!("sym_{name}"),
        kind,
        name: name.into(),
        qname: format!("m.{name}"),
        language: "python".into(),
        parent_id: parent,
        span: Span {
            start_line: 1,
            end_line: 2,
            ..Span::default()
        },
        signature: format!("def {name}(user_id: int) -> User"),
        doc: Some("Fetches the user. Café ünïcode".into()),
        visibility: Visibility::Public,
        modifiers: String::new(),
        complexity: Some(1),
        type_text: None,
        name_tokens: name.replace('_', " "),
        qname_tokens: format!("m {}", name.replace('_', " ")),
    }
}

/// A published generation of `commit` with one file `path` defining `name` and a caller.
fn build(store: &mut Store, commit: &str, path: &str, name: &str) -> i64 {
    let mut b = store
        .begin_generation(Some(commit), Some("main"), false)
        .unwrap();
    let (f, n, r) = (b.first.file, b.first.node, b.first.reference);
    b.write_files(&[(
        FileVersionRow {
            id: f,
            path: path.into(),
            hash: format!("hash-{commit}-{path}"),
            language: "python".into(),
            module: "m".into(),
            extractor: "x".into(),
            size: 10,
            lines: 2,
            lossy: false,
            node_id: n,
            diagnostics: None,
            uncommitted: false,
        },
        vec![
            node(n, f, NodeKind::File, path, None),
            node(n + 1, f, NodeKind::Function, name, Some(n)),
            node(
                n + 2,
                f,
                NodeKind::Function,
                &format!("call_{name}"),
                Some(n),
            ),
        ],
        vec![
            RefRow {
                id: r,
                file_id: f,
                src_id: n + 2,
                kind: RefKind::Call,
                name: name.into(),
                receiver: None,
                implementor: None,
                line: 2,
                col: 4,
                end_col: 10,
            },
            RefRow {
                id: r + 1,
                file_id: f,
                src_id: n + 2,
                kind: RefKind::Call,
                name: "missing".into(),
                receiver: None,
                implementor: None,
                line: 3,
                col: 4,
                end_col: 11,
            },
        ],
        vec![],
        vec![],
    )])
    .unwrap();
    b.write_resolution(
        &[EdgeRow {
            file_id: f,
            src: n + 2,
            dst: n + 1,
            kind: EdgeKind::Calls,
            provenance: Provenance::Inferred,
            confidence: Confidence::High,
            rule: "same_file",
            ref_id: Some(r),
            import_id: None,
        }],
        &[UnresolvedRow {
            file_id: f,
            ref_id: r + 1,
            reason: "no_candidates",
            candidates: 0,
        }],
    )
    .unwrap();
    let set = b.edge_set(f).unwrap();
    b.record_sets(&[(f, set, Some(42))]).unwrap();
    b.publish(r#"{"context":"ctx","files":1,"symbols":2}"#)
        .unwrap()
}

/// What a reader sees of a generation: FTS hits, callers, unresolved references, files, sets.
fn answers(store: &Store, g: i64, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for query in [
        format!("\"{}\"*", &name[..4]),
        "\"fetches\"".into(),
        "\"cafe\"".into(),
    ] {
        let hits = store
            .search_fts(g, &query, &SearchFilters::default(), 10)
            .unwrap();
        out.push(format!(
            "{query}: {:?}",
            hits.iter().map(|h| h.qname.clone()).collect::<Vec<_>>()
        ));
    }
    let def = &store.nodes_by_name(g, name, 10).unwrap()[0];
    let callers = store.edges_to(g, def.id, &["calls"]).unwrap();
    out.push(format!(
        "callers: {:?}",
        callers
            .iter()
            .map(|e| {
                let other = store.node(e.other).unwrap().unwrap();
                (other.qname, e.rule.clone(), e.site.clone())
            })
            .collect::<Vec<_>>()
    ));
    let (count, sample) = store.unresolved_named(g, "missing", &[], &[], 5).unwrap();
    out.push(format!("unresolved: {count} {:?}", sample[0].reason));
    for f in store.files(g).unwrap() {
        out.push(format!("file {} {} {}", f.path, f.hash, f.module));
    }
    let hashes: Vec<Option<i64>> = store
        .generation_set_hashes(g)
        .unwrap()
        .into_iter()
        .map(|(_, _, h)| h)
        .collect();
    out.push(format!("set hashes {hashes:?}"));
    out
}

fn counts(store: &Store) -> (usize, usize) {
    let gens = store.generations().unwrap();
    let files: usize = gens.iter().map(|g| store.files(g.id).unwrap().len()).sum();
    (gens.len(), files)
}

const KEY: &str = "root0000";
const COMMIT: &str = "c1c1c1c1";

fn exported(dir: &Path) -> (Store, i64, std::path::PathBuf) {
    let mut a = Store::open(&dir.join("a.db")).unwrap();
    // An older generation first, so the exported one's ids do not start at 1.
    build(&mut a, "c0c0c0c0", "old.py", "old_thing");
    let g = build(&mut a, COMMIT, "users.py", "get_user_by_id");
    let file = dir.join("cache").join(format!("{COMMIT}.sxb"));
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let bytes = a.export_generation(g, KEY, &file).unwrap();
    assert!(bytes > 0 && file.is_file());
    (a, g, file)
}

#[test]
fn an_exported_generation_imports_into_an_empty_database_with_the_same_answers() {
    let dir = tempfile::tempdir().unwrap();
    let (a, ga, file) = exported(dir.path());
    let info = read_bundle_info(&file).unwrap();
    assert_eq!(
        (info.repo_key.as_str(), info.commit.as_str(), info.files),
        (KEY, COMMIT, 1)
    );
    // Only the exported generation's rows travel.
    assert_eq!(info.nodes, 3);
    let mut b = Store::open(&dir.path().join("b.db")).unwrap();
    let gb = b
        .import_generation(
            &file,
            BundleExpect {
                repo_key: KEY,
                commit: Some(COMMIT),
            },
        )
        .unwrap();
    assert_eq!(b.active_generation_id().unwrap(), 0, "imported, not active");
    let header = b.generation(gb).unwrap().unwrap();
    assert_eq!(
        (
            header.status.as_str(),
            header.commit.as_deref(),
            header.dirty
        ),
        ("published", Some(COMMIT), false)
    );
    assert_eq!(
        header.stats.as_deref(),
        a.generation(ga).unwrap().unwrap().stats.as_deref()
    );
    assert_eq!(
        answers(&a, ga, "get_user_by_id"),
        answers(&b, gb, "get_user_by_id")
    );
    // The secondary indexes dropped for the bulk load are back.
    assert!(
        b.explain_name_lookup()
            .unwrap()
            .contains("nodes_name_nocase")
    );
}

#[test]
fn an_import_beside_local_rows_remaps_every_id() {
    let dir = tempfile::tempdir().unwrap();
    let (a, ga, file) = exported(dir.path());
    let mut b = Store::open(&dir.path().join("b.db")).unwrap();
    let local = build(&mut b, "d0d0d0d0", "local.py", "local_thing");
    let before = answers(&b, local, "local_thing");
    let gb = b
        .import_generation(
            &file,
            BundleExpect {
                repo_key: KEY,
                commit: None,
            },
        )
        .unwrap();
    assert_eq!(b.active_generation_id().unwrap(), local);
    assert_eq!(answers(&b, local, "local_thing"), before);
    assert_eq!(
        answers(&a, ga, "get_user_by_id"),
        answers(&b, gb, "get_user_by_id")
    );
    // The local generation does not see the imported rows and vice versa.
    assert!(
        b.nodes_by_name(local, "get_user_by_id", 10)
            .unwrap()
            .is_empty()
    );
    assert!(b.nodes_by_name(gb, "local_thing", 10).unwrap().is_empty());
    // A generation built after the import allocates ids above the imported ones.
    let g3 = build(&mut b, "e0e0e0e0", "new.py", "new_thing");
    assert_eq!(b.files(g3).unwrap().len(), 1);
    assert_eq!(
        answers(&a, ga, "get_user_by_id"),
        answers(&b, gb, "get_user_by_id")
    );
}

fn refusal(file: &Path, expect: BundleExpect<'_>) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut b = Store::open(&dir.path().join("b.db")).unwrap();
    build(&mut b, "d0d0d0d0", "local.py", "local_thing");
    let before = counts(&b);
    let err = b.import_generation(file, expect).unwrap_err();
    assert!(matches!(err, StoreError::BadBaseline { .. }), "{err}");
    assert_eq!(counts(&b), before, "a refused import changes nothing");
    err.to_string()
}

#[test]
fn foreign_other_commit_other_version_truncated_and_corrupt_files_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (_a, _, file) = exported(dir.path());
    let ok = BundleExpect {
        repo_key: KEY,
        commit: Some(COMMIT),
    };
    let msg = refusal(
        &file,
        BundleExpect {
            repo_key: "another",
            commit: None,
        },
    );
    assert!(msg.contains("another repository"), "{msg}");
    let msg = refusal(
        &file,
        BundleExpect {
            repo_key: KEY,
            commit: Some("ffff"),
        },
    );
    assert!(msg.contains("holds commit c1c1c1c1, not ffff"), "{msg}");

    let bytes = std::fs::read(&file).unwrap();
    let variant = |name: &str, data: &[u8]| {
        let p = dir.path().join(name);
        std::fs::write(&p, data).unwrap();
        p
    };
    let truncated = variant("truncated.sxb", &bytes[..bytes.len() / 2]);
    let msg = refusal(&truncated, ok);
    assert!(msg.contains("truncated or corrupt"), "{msg}");

    let mut corrupt = bytes.clone();
    let page = 8192;
    for b in &mut corrupt[2 * page..3 * page] {
        *b = 0xA5;
    }
    let msg = refusal(&variant("corrupt.sxb", &corrupt), ok);
    assert!(msg.contains("corrupt"), "{msg}");

    let msg = refusal(&variant("text.sxb", b"hello, not a database"), ok);
    assert!(msg.contains("refused"), "{msg}");

    let msg = refusal(&dir.path().join("absent.sxb"), ok);
    assert!(msg.contains("no such file"), "{msg}");

    // Another schema version: the user_version of a copy changed.
    let other = variant("v99.sxb", &bytes);
    Store::open(&other)
        .and_then(|s| s.set_user_version_for_tests(3))
        .unwrap_or(());
    let msg = refusal(&other, ok);
    assert!(msg.contains("schema version 3"), "{msg}");
}

#[test]
fn pins_keep_generations_through_garbage_collection() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Store::open(&dir.path().join("a.db")).unwrap();
    // Clean generations of nine commits: the policy alone keeps the newest five commits.
    let ids: Vec<i64> = (0..9)
        .map(|i| build(&mut s, &format!("commit{i}"), "a.py", &format!("thing_{i}")))
        .collect();
    assert!(s.pin(&Pin::Generation(ids[0])).unwrap());
    assert!(!s.pin(&Pin::Generation(ids[0])).unwrap(), "already pinned");
    assert!(s.pin(&Pin::Commit("commit1".into())).unwrap());
    assert!(s.pin(&Pin::Commit("nope".into())).is_err());
    assert!(s.pin(&Pin::Generation(999)).is_err());
    s.collect_garbage(2).unwrap();
    let kept: Vec<i64> = s.generations().unwrap().iter().map(|g| g.id).collect();
    assert!(kept.contains(&ids[0]) && kept.contains(&ids[1]), "{kept:?}");
    assert!(
        !kept.contains(&ids[2]),
        "unpinned old baselines go: {kept:?}"
    );
    let pins = s.pins().unwrap();
    assert_eq!(pins.len(), 2);
    let commit_pin = pins
        .iter()
        .find(|p| p.pin == Pin::Commit("commit1".into()))
        .unwrap();
    assert_eq!(commit_pin.generation, Some(ids[1]));
    // Pinned rows stay readable.
    assert_eq!(s.nodes_by_name(ids[0], "thing_0", 10).unwrap().len(), 1);
    assert!(s.unpin(&Pin::Generation(ids[0])).unwrap());
    assert!(!s.unpin(&Pin::Generation(ids[0])).unwrap());
    s.collect_garbage(2).unwrap();
    let kept: Vec<i64> = s.generations().unwrap().iter().map(|g| g.id).collect();
    assert!(
        !kept.contains(&ids[0]) && kept.contains(&ids[1]),
        "{kept:?}"
    );
}
