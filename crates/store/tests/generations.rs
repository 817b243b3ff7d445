//! Generations on a real SQLite file: build, publish, read, abandon (crash), collect garbage.

use sextant_model::{Confidence, EdgeKind, NodeKind, Provenance, RefKind, Span, Visibility};
use sextant_store::{
    BindingRow, EdgeRow, FileVersionRow, NewNode, RefRow, SearchFilters, Store, UnresolvedRow,
};

fn file(id: i64, node: i64, path: &str, hash: &str) -> FileVersionRow {
    FileVersionRow {
        id,
        path: path.into(),
        hash: hash.into(),
        language: "python".into(),
        module: "m".into(),
        extractor: "x".into(),
        size: 10,
        lines: 2,
        lossy: false,
        node_id: node,
        diagnostics: None,
        uncommitted: false,
    }
}

fn node(id: i64, file_id: i64, kind: NodeKind, name: &str, parent: Option<i64>) -> NewNode {
    NewNode {
        id,
        file_id,
        stable_id: format!("sym_{id:016x}"),
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
        signature: format!("def {name}()"),
        doc: Some("Does things.".into()),
        visibility: Visibility::Public,
        modifiers: String::new(),
        complexity: Some(1),
        type_text: Some("int".into()),
        name_tokens: sextant_search_like(name),
        qname_tokens: format!("m {}", sextant_search_like(name)),
    }
}

fn sextant_search_like(name: &str) -> String {
    name.replace('_', " ")
}

fn build(store: &mut Store, hash: &str, publish: bool) -> i64 {
    let mut b = store
        .begin_generation(Some("abc"), Some("main"), false)
        .unwrap();
    b.begin_bulk().unwrap();
    let f = b.first.file;
    let n = b.first.node;
    let r = b.first.reference;
    b.write_files(&[(
        file(f, n, "m.py", hash),
        vec![
            node(n, f, NodeKind::File, "m.py", None),
            node(n + 1, f, NodeKind::Function, "get_user_by_id", Some(n)),
            node(n + 2, f, NodeKind::Function, "caller", Some(n)),
        ],
        vec![
            RefRow {
                id: r,
                file_id: f,
                src_id: n + 2,
                kind: RefKind::Call,
                name: "get_user_by_id".into(),
                receiver: None,
                implementor: None,
                line: 2,
                col: 4,
                end_col: 18,
            },
            RefRow {
                id: r + 1,
                file_id: f,
                src_id: n + 2,
                kind: RefKind::Call,
                name: "missing".into(),
                receiver: Some("x".into()),
                implementor: None,
                line: 3,
                col: 4,
                end_col: 11,
            },
        ],
        vec![],
        vec![BindingRow {
            file_id: f,
            scope_id: n + 1,
            name: "x".into(),
            type_text: None,
            value: Some("f".into()),
            line: 3,
        }],
    )])
    .unwrap();
    // As the indexer does: the file tables' pages are copied to the database on another
    // connection while the edges are written.
    b.build_file_indexes().unwrap();
    b.checkpoint_behind();
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
    if publish {
        b.publish("{}").unwrap()
    } else {
        b.generation
    }
}

#[test]
fn publish_read_abandon_and_collect() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let mut store = Store::open(&path).unwrap();
    assert_eq!(store.active_generation_id().unwrap(), 0);
    let g1 = build(&mut store, "h1", true);
    assert_eq!(store.active_generation_id().unwrap(), g1);

    // Readers see the published generation.
    let reader = Store::open_read_only(&path).unwrap();
    let hits = reader
        .search_fts(g1, "\"user\"*", &SearchFilters::default(), 10)
        .unwrap();
    assert_eq!(hits[0].name, "get_user_by_id");
    let by_name = reader.nodes_by_name(g1, "caller", 10).unwrap();
    let callees = reader.edges_from(g1, by_name[0].id, &["calls"]).unwrap();
    assert_eq!(callees.len(), 1);
    assert_eq!(callees[0].site.as_ref().map(|s| s.1), Some(2));
    let (count, sample) = reader.unresolved_named(g1, "missing", &[], &[], 5).unwrap();
    assert_eq!((count, sample[0].receiver.as_deref()), (1, Some("x")));

    // An abandoned (crashed) build leaves the published generation active and readable.
    let g2 = build(&mut store, "h2", false);
    assert_eq!(store.active_generation_id().unwrap(), g1);
    assert_eq!(reader.nodes_by_name(g1, "caller", 10).unwrap().len(), 1);
    // The next writer collects it, and its file versions.
    store.collect_garbage(2).unwrap();
    assert!(store.generation(g2).unwrap().is_none());
    assert_eq!(store.files(g1).unwrap().len(), 1);

    // Two more published generations: only the newest two survive garbage collection.
    let g3 = build(&mut store, "h3", true);
    let g4 = build(&mut store, "h4", true);
    store.collect_garbage(2).unwrap();
    let ids: Vec<i64> = store.generations().unwrap().iter().map(|g| g.id).collect();
    assert_eq!(ids, vec![g4, g3]);
    assert_eq!(reader.nodes_by_name(g4, "caller", 10).unwrap().len(), 1);
    assert!(reader.nodes_by_name(g1, "caller", 10).unwrap().is_empty());
}

#[test]
fn reopening_restores_indexes_dropped_by_an_interrupted_bulk_load() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    {
        let mut store = Store::open(&path).unwrap();
        let mut b = store.begin_generation(None, None, false).unwrap();
        assert!(b.begin_bulk().unwrap());
        // Dropped here: simulate a crash before finish_bulk.
    }
    let mut store = Store::open(&path).unwrap();
    let g = build(&mut store, "h", true);
    let plan = store.explain_name_lookup().unwrap();
    assert!(plan.contains("nodes_name_nocase"), "{plan}");
    assert_eq!(store.nodes_by_name(g, "caller", 10).unwrap().len(), 1);
}

/// A bulk load maps nothing, keeps a small page cache and sorts into files; the connection gets its own back
/// when the load is published, and when it is abandoned.
#[test]
fn a_bulk_load_uses_less_memory_for_pages_and_gives_the_settings_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let mut store = Store::open(&path).unwrap();
    let normal = store.memory_settings().unwrap();
    assert_eq!(normal, (-65_536, 268_435_456, 2));
    {
        let mut b = store.begin_generation(None, None, false).unwrap();
        assert!(b.begin_bulk().unwrap());
        assert_eq!(b.store().memory_settings().unwrap(), (-8_192, 0, 1));
        // Abandoned.
    }
    assert_eq!(store.memory_settings().unwrap(), normal);
    build(&mut store, "h", true);
    assert_eq!(store.memory_settings().unwrap(), normal);
}

#[test]
fn a_bulk_load_checkpointed_behind_ends_with_everything_in_the_database_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let g = {
        let mut store = Store::open(&path).unwrap();
        build(&mut store, "h", true)
    };
    // The final checkpoint truncated the WAL: every page is in the database file itself.
    let wal = dir.path().join("index.db-wal");
    assert_eq!(std::fs::metadata(&wal).map(|m| m.len()).unwrap_or(0), 0);
    let store = Store::open_read_only(&path).unwrap();
    assert_eq!(store.active_generation_id().unwrap(), g);
    assert_eq!(store.nodes_by_name(g, "caller", 10).unwrap().len(), 1);
    let caller = store.nodes_by_name(g, "caller", 10).unwrap()[0].id;
    assert_eq!(store.edges_from(g, caller, &["calls"]).unwrap().len(), 1);
}

#[test]
fn a_published_bulk_load_has_planner_statistics_of_its_indexes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    {
        let mut store = Store::open(&path).unwrap();
        build(&mut store, "h", true);
    }
    let conn = rusqlite::Connection::open(&path).unwrap();
    let analyzed: Vec<String> = conn
        .prepare("SELECT DISTINCT idx FROM sqlite_stat1 WHERE idx IS NOT NULL ORDER BY idx")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    for index in ["refs_name", "edges_src", "edges_dst", "nodes_qname"] {
        assert!(
            analyzed.iter().any(|i| i == index),
            "{index} not in {analyzed:?}"
        );
    }
}

#[test]
fn newer_schema_is_refused_with_advice() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    drop(Store::open(&path).unwrap());
    Store::open(&path)
        .unwrap()
        .set_user_version_for_tests(99)
        .unwrap();
    let err = Store::open(&path).unwrap_err().to_string();
    assert!(err.contains("newer Sextant"), "{err}");
}

/// Whether the database file's header says WAL (bytes 18 and 19 are 2; 1 for a rollback journal).
fn in_wal_mode(db: &std::path::Path) -> bool {
    let header = std::fs::read(db).unwrap();
    header[18] == 2 && header[19] == 2
}

fn marker(db: &std::path::Path) -> std::path::PathBuf {
    db.with_file_name("index.db-building")
}

#[test]
fn a_first_load_runs_without_the_wal_and_publishes_in_wal_mode() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let mut store = Store::open(&path).unwrap();
    assert!(in_wal_mode(&path));
    {
        let mut b = store.begin_generation(None, None, false).unwrap();
        assert!(b.begin_bulk().unwrap());
        assert!(marker(&path).exists(), "the load holds no marker");
        assert!(!in_wal_mode(&path), "the load still runs in WAL mode");
        b.publish("{}").unwrap();
    }
    assert!(!marker(&path).exists(), "the marker outlived the load");
    assert!(in_wal_mode(&path));
    // The next generation (not a first load) keeps the WAL.
    let g = build(&mut store, "h", true);
    assert!(!marker(&path).exists());
    assert!(in_wal_mode(&path));
    let reader = Store::open_read_only(&path).unwrap();
    assert_eq!(reader.nodes_by_name(g, "caller", 10).unwrap().len(), 1);
}

#[test]
fn an_abandoned_first_load_returns_to_wal_and_keeps_what_was_committed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let mut store = Store::open(&path).unwrap();
    let g = build(&mut store, "h", false);
    assert!(!marker(&path).exists());
    assert!(in_wal_mode(&path));
    // Consistent, not reset: the abandoned generation is there for garbage collection.
    assert!(store.generation(g).unwrap().is_some());
    drop(store);
    let mut store = Store::open(&path).unwrap();
    assert!(store.generation(g).unwrap().is_some());
    store.collect_garbage(2).unwrap();
    let g2 = build(&mut store, "h2", true);
    assert_eq!(store.nodes_by_name(g2, "caller", 10).unwrap().len(), 1);
}

#[test]
fn a_first_load_with_another_connection_open_keeps_the_wal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let mut store = Store::open(&path).unwrap();
    let reader = Store::open_read_only(&path).unwrap();
    assert_eq!(reader.active_generation_id().unwrap(), 0);
    {
        let mut b = store.begin_generation(None, None, false).unwrap();
        assert!(b.begin_bulk().unwrap());
        assert!(!marker(&path).exists());
        assert!(in_wal_mode(&path));
    }
    let g = build(&mut store, "h", true);
    assert_eq!(reader.nodes_by_name(g, "caller", 10).unwrap().len(), 1);
}

/// A process killed during a first load leaves its marker, unlocked, and possibly torn pages:
/// the next open (read-write or read-only) resets the database to empty. A marker that a live
/// load holds is left alone, and so is a database with a published generation (the load
/// completed; only removing the marker failed).
#[test]
fn a_database_left_by_a_killed_first_load_is_reset_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let g = {
        let mut store = Store::open(&path).unwrap();
        build(&mut store, "h", false)
    };
    // A live load elsewhere: its marker is locked; nothing is reset.
    let held = std::fs::File::create(marker(&path)).unwrap();
    held.try_lock().unwrap();
    {
        let store = Store::open(&path).unwrap();
        assert!(store.generation(g).unwrap().is_some());
        drop(Store::open_read_only(&path).unwrap());
        assert!(store.generation(g).unwrap().is_some());
    }
    assert!(marker(&path).exists());
    drop(held);
    // Killed: the marker stays, unlocked, and a page in the middle is torn.
    let mut bytes = std::fs::read(&path).unwrap();
    let page = 4096;
    assert!(bytes.len() > 4 * page);
    for b in &mut bytes[2 * page..3 * page] {
        *b = 0xA5;
    }
    std::fs::write(&path, &bytes).unwrap();
    let reader = Store::open_read_only(&path).unwrap();
    assert_eq!(reader.active_generation_id().unwrap(), 0);
    assert!(reader.generation(g).unwrap().is_none(), "not reset");
    assert!(!marker(&path).exists(), "the marker outlived the reset");
    drop(reader);
    let mut store = Store::open(&path).unwrap();
    let g = build(&mut store, "h", true);
    assert_eq!(store.nodes_by_name(g, "caller", 10).unwrap().len(), 1);
    drop(store);
    // A stale marker beside a published generation: removed, nothing reset.
    drop(std::fs::File::create(marker(&path)).unwrap());
    let store = Store::open(&path).unwrap();
    assert_eq!(store.active_generation_id().unwrap(), g);
    assert!(!marker(&path).exists());
}

/// One file with a function `get_user_{i}`, ids counted from the builder's first ones.
fn numbered(first: &sextant_store::IdRanges, i: i64) -> sextant_store::FileBatch {
    let (f, n) = (first.file + i, first.node + 2 * i);
    (
        file(f, n, &format!("m{i}.py"), "h"),
        vec![
            node(n, f, NodeKind::File, &format!("m{i}.py"), None),
            node(
                n + 1,
                f,
                NodeKind::Function,
                &format!("get_user_{i}"),
                Some(n),
            ),
        ],
        vec![],
        vec![],
        vec![],
    )
}

/// Files appended in batches to one open transaction: every row is written, the full-text rows
/// when it commits (taken from the batches, which the indexer then drops).
#[test]
fn files_appended_in_batches_are_written_and_searchable_once_committed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let mut store = Store::open(&path).unwrap();
    let mut b = store.begin_generation(Some("abc"), None, false).unwrap();
    b.begin_bulk().unwrap();
    let first = b.first;
    let mut one = vec![numbered(&first, 0), numbered(&first, 1)];
    b.append_files(&mut one).unwrap();
    let taken = &one[1].1[1];
    assert!(taken.name_tokens.is_empty() && taken.signature.is_empty() && taken.doc.is_none());
    b.append_files(&mut [numbered(&first, 2)]).unwrap();
    b.commit_files().unwrap();
    // Nothing pending: nothing to do.
    b.commit_files().unwrap();
    b.build_file_indexes().unwrap();
    let g = b.publish("{}").unwrap();

    let reader = Store::open_read_only(&path).unwrap();
    let hits = reader
        .search_fts(g, "\"user\"*", &SearchFilters::default(), 10)
        .unwrap();
    let mut names: Vec<&str> = hits.iter().map(|h| h.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(names, ["get_user_0", "get_user_1", "get_user_2"]);
    // The nodes' own columns were written before their full-text ones were taken.
    let node = &reader.nodes_by_name(g, "get_user_1", 1).unwrap()[0];
    assert_eq!(
        (node.signature.as_str(), node.doc.as_deref()),
        ("def get_user_1()", Some("Does things."))
    );
    assert_eq!(reader.files(g).unwrap().len(), 3);
}

/// A batch that fails rolls back the whole open transaction, and so does a builder dropped
/// with one open: the store takes the next generation as if neither had been.
#[test]
fn a_failed_append_and_an_abandoned_one_leave_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.db");
    let mut store = Store::open(&path).unwrap();
    let g1 = build(&mut store, "h1", true);
    {
        let mut b = store.begin_generation(Some("abc"), None, false).unwrap();
        let first = b.first;
        b.append_files(&mut [numbered(&first, 0)]).unwrap();
        // The same file id again: refused, and the first batch goes with it.
        assert!(b.append_files(&mut [numbered(&first, 0)]).is_err());
        b.commit_files().unwrap();
        assert!(
            b.store()
                .nodes_by_name(b.generation, "get_user_0", 5)
                .unwrap()
                .is_empty()
        );
        b.append_files(&mut [numbered(&first, 1)]).unwrap();
        // Dropped with that batch uncommitted.
    }
    let g2 = build(&mut store, "h2", true);
    assert!(g2 > g1);
    let reader = Store::open_read_only(&path).unwrap();
    assert!(
        reader
            .nodes_by_name(g2, "get_user_1", 5)
            .unwrap()
            .is_empty()
    );
    assert_eq!(reader.nodes_by_name(g2, "caller", 5).unwrap().len(), 1);
}

/// The versions of several generations come once each, with the first generation (in the order
/// asked) holding them and whether the marked one does; none for no generations.
#[test]
fn each_version_of_generations_comes_once_with_its_first_generation() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("index.db")).unwrap();
    let g1 = build(&mut store, "h1", true);
    let v1 = store.files(g1).unwrap()[0].id;
    // g2 holds g1's version and nothing else.
    let mut b = store
        .begin_generation(Some("abd"), Some("main"), false)
        .unwrap();
    b.reuse_files(&[(v1, false)]).unwrap();
    let g2 = b.publish("{}").unwrap();
    let g3 = build(&mut store, "h3", true);
    let v3 = store.files(g3).unwrap()[0].id;
    let seen = |generations: &[i64], marked: Option<i64>| {
        let mut seen = Vec::new();
        store
            .each_version_of_generations(generations, marked, |v| {
                seen.push((
                    v.id,
                    v.path.to_string(),
                    v.hash.to_string(),
                    v.rank,
                    v.marked,
                ));
                assert_eq!((v.language, v.module, v.extractor), ("python", "m", "x"));
            })
            .unwrap();
        seen.sort();
        seen
    };
    let m = |id: i64, hash: &str, rank: usize, marked: bool| {
        (id, "m.py".to_string(), hash.to_string(), rank, marked)
    };
    assert_eq!(
        seen(&[g3, g2, g1], Some(g1)),
        [m(v1, "h1", 1, true), m(v3, "h3", 0, false)]
    );
    assert_eq!(
        seen(&[g1, g3], Some(g3)),
        [m(v1, "h1", 0, false), m(v3, "h3", 1, true)]
    );
    assert_eq!(seen(&[g2], None), [m(v1, "h1", 0, false)]);
    assert!(seen(&[], Some(g1)).is_empty());
}
