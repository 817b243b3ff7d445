//! Schema and migrations (`PRAGMA user_version`). Documented in `docs/schema.md`; keep both in step.

use rusqlite::Connection;

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = 4;

const V1: &str = r#"
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;

CREATE TABLE generations (
    id          INTEGER PRIMARY KEY,
    commit_id   TEXT,
    branch      TEXT,
    dirty       INTEGER NOT NULL,
    status      TEXT NOT NULL,
    started_at  INTEGER NOT NULL,
    finished_at INTEGER,
    stats       TEXT
);

CREATE TABLE file_versions (
    id          INTEGER PRIMARY KEY,
    path        TEXT NOT NULL,
    hash        TEXT NOT NULL,
    language    TEXT NOT NULL,
    module      TEXT NOT NULL,
    extractor   TEXT NOT NULL,
    size        INTEGER NOT NULL,
    lines       INTEGER NOT NULL,
    lossy       INTEGER NOT NULL,
    node_id     INTEGER NOT NULL,
    diagnostics TEXT
);
CREATE INDEX file_versions_path ON file_versions(path, hash);

CREATE TABLE gen_files (
    generation         INTEGER NOT NULL,
    file_id     INTEGER NOT NULL,
    uncommitted INTEGER NOT NULL,
    PRIMARY KEY (generation, file_id)
) WITHOUT ROWID;
CREATE INDEX gen_files_file ON gen_files(file_id);

CREATE TABLE skipped (
    generation    INTEGER NOT NULL,
    path   TEXT NOT NULL,
    reason TEXT NOT NULL,
    size   INTEGER NOT NULL
);
CREATE INDEX skipped_gen ON skipped(generation);

CREATE TABLE nodes (
    id          INTEGER PRIMARY KEY,
    file_id     INTEGER NOT NULL,
    stable_id   TEXT NOT NULL,
    kind        TEXT NOT NULL,
    name        TEXT NOT NULL,
    qname       TEXT NOT NULL,
    language    TEXT NOT NULL,
    parent_id   INTEGER,
    start_line  INTEGER NOT NULL,
    start_col   INTEGER NOT NULL,
    end_line    INTEGER NOT NULL,
    end_col     INTEGER NOT NULL,
    start_byte  INTEGER NOT NULL,
    end_byte    INTEGER NOT NULL,
    signature   TEXT NOT NULL,
    doc         TEXT,
    visibility  TEXT NOT NULL,
    modifiers   TEXT NOT NULL,
    complexity  INTEGER
);

CREATE TABLE refs (
    id          INTEGER PRIMARY KEY,
    file_id     INTEGER NOT NULL,
    src_id      INTEGER NOT NULL,
    kind        TEXT NOT NULL,
    name        TEXT NOT NULL,
    receiver    TEXT,
    implementor TEXT,
    line        INTEGER NOT NULL,
    col         INTEGER NOT NULL,
    end_col     INTEGER NOT NULL
);

CREATE TABLE imports (
    id        INTEGER PRIMARY KEY,
    file_id   INTEGER NOT NULL,
    src_id    INTEGER NOT NULL,
    source    TEXT NOT NULL,
    name      TEXT,
    alias     TEXT,
    wildcard  INTEGER NOT NULL,
    line      INTEGER NOT NULL,
    col       INTEGER NOT NULL
);

CREATE TABLE edges (
    generation        INTEGER NOT NULL,
    src        INTEGER NOT NULL,
    dst        INTEGER NOT NULL,
    kind       TEXT NOT NULL,
    provenance TEXT NOT NULL,
    confidence TEXT NOT NULL,
    rule       TEXT NOT NULL,
    ref_id     INTEGER,
    import_id  INTEGER
);

CREATE TABLE unresolved (
    generation        INTEGER NOT NULL,
    ref_id     INTEGER NOT NULL,
    reason     TEXT NOT NULL,
    candidates INTEGER NOT NULL,
    PRIMARY KEY (generation, ref_id)
) WITHOUT ROWID;

CREATE VIRTUAL TABLE nodes_fts USING fts5(
    name_tokens, qname_tokens, signature, doc,
    content = '', contentless_delete = 1,
    tokenize = 'unicode61 remove_diacritics 2'
);

INSERT INTO nodes_fts(nodes_fts, rank) VALUES ('rank', 'bm25(10.0, 4.0, 1.0, 0.5)');
INSERT INTO meta(key, value) VALUES ('active_generation', '0');
"#;

/// Version 2: declared types on nodes and typed bindings (receiver typing). File versions
/// written by version 1 have no bindings; their extractor version no longer matches, so the
/// next index re-extracts them.
const V2: &str = r#"
ALTER TABLE nodes ADD COLUMN type_text TEXT;
CREATE TABLE bindings (
    file_id   INTEGER NOT NULL,
    scope_id  INTEGER NOT NULL,
    name      TEXT NOT NULL,
    type_text TEXT,
    value     TEXT,
    line      INTEGER NOT NULL
);
"#;

/// Version 3: edges and unresolved references belong to per-file *edge sets* instead of to a
/// generation. `gen_files.edge_set` names the set holding the edges that leave a file (those
/// whose source node is in it) and its unresolved references; a generation that changes one
/// file shares every other file's set with its predecessor, so an incremental update writes
/// only the sets that changed. `gen_edges` / `gen_unresolved` are the per-generation views
/// every query reads. Existing edges are moved into one set per (generation, file).
const V3: &str = r#"
ALTER TABLE gen_files ADD COLUMN edge_set INTEGER NOT NULL DEFAULT 0;
UPDATE gen_files SET edge_set = generation * 4294967296 + file_id;
CREATE TABLE edges_v3 (
    set_id     INTEGER NOT NULL,
    src        INTEGER NOT NULL,
    dst        INTEGER NOT NULL,
    kind       TEXT NOT NULL,
    provenance TEXT NOT NULL,
    confidence TEXT NOT NULL,
    rule       TEXT NOT NULL,
    ref_id     INTEGER,
    import_id  INTEGER
);
INSERT INTO edges_v3
    SELECT g.edge_set, e.src, e.dst, e.kind, e.provenance, e.confidence, e.rule, e.ref_id, e.import_id
    FROM edges e JOIN nodes n ON n.id = e.src
    JOIN gen_files g ON g.generation = e.generation AND g.file_id = n.file_id;
DROP TABLE edges;
ALTER TABLE edges_v3 RENAME TO edges;
CREATE TABLE unresolved_v3 (
    ref_id     INTEGER NOT NULL,
    set_id     INTEGER NOT NULL,
    reason     TEXT NOT NULL,
    candidates INTEGER NOT NULL,
    PRIMARY KEY (ref_id, set_id)
) WITHOUT ROWID;
INSERT OR IGNORE INTO unresolved_v3
    SELECT u.ref_id, g.edge_set, u.reason, u.candidates
    FROM unresolved u JOIN refs r ON r.id = u.ref_id
    JOIN gen_files g ON g.generation = u.generation AND g.file_id = r.file_id;
DROP TABLE unresolved;
ALTER TABLE unresolved_v3 RENAME TO unresolved;
CREATE VIEW gen_edges AS
    SELECT g.generation AS generation, e.set_id AS set_id, e.src AS src, e.dst AS dst,
           e.kind AS kind, e.provenance AS provenance, e.confidence AS confidence,
           e.rule AS rule, e.ref_id AS ref_id, e.import_id AS import_id
    FROM gen_files g JOIN edges e ON e.set_id = g.edge_set;
CREATE VIEW gen_unresolved AS
    SELECT g.generation AS generation, u.set_id AS set_id, u.ref_id AS ref_id,
           u.reason AS reason, u.candidates AS candidates
    FROM gen_files g JOIN unresolved u ON u.set_id = g.edge_set;
"#;

/// Version 4: `gen_files.set_hash`, a fingerprint of the edge set's content (NULL when unknown),
/// so an indexer that resolved a file to exactly the edges of the previous generation shares that
/// set instead of writing a copy.
const V4: &str = r#"
ALTER TABLE gen_files ADD COLUMN set_hash INTEGER;
"#;

/// Secondary indexes of the bulk tables, as (name, `table(columns)`); those of the resolution's
/// tables (edges, unresolved) come last.
/// A first index of an empty database drops them and builds them once after loading (much faster
/// than maintaining them row by row); `Store::open` always makes sure they exist, so a crash in
/// between cannot leave a database without them.
pub(crate) const SECONDARY_INDEXES: &[(&str, &str)] = &[
    ("nodes_name_nocase", "nodes(name COLLATE NOCASE)"),
    ("nodes_qname", "nodes(qname)"),
    ("nodes_stable", "nodes(stable_id)"),
    ("nodes_file", "nodes(file_id)"),
    ("nodes_parent", "nodes(parent_id)"),
    ("refs_file", "refs(file_id)"),
    ("refs_name", "refs(name)"),
    ("imports_file", "imports(file_id)"),
    ("bindings_file", "bindings(file_id)"),
    ("gen_files_set", "gen_files(edge_set, generation)"),
    ("unresolved_set", "unresolved(set_id)"),
    ("edges_set", "edges(set_id)"),
    ("edges_src", "edges(src)"),
    ("edges_dst", "edges(dst)"),
];

/// Indexes of earlier builds that no query needs any more; dropped when a database is opened.
/// `refs(src_id)`: the references made from a node are found among its file's (`refs_file`).
pub(crate) const RETIRED_INDEXES: &[&str] = &["refs_src"];

/// Creates the secondary indexes that are missing: all of them, or only those of the
/// file-version tables (nodes, refs, imports).
pub(crate) fn create_indexes(conn: &Connection, file_tables_only: bool) -> rusqlite::Result<()> {
    for (name, on) in SECONDARY_INDEXES {
        // The resolution's tables are filled after the file tables' indexes are built: theirs
        // are built once they are loaded, not maintained row by row.
        if file_tables_only && (on.starts_with("edges(") || on.starts_with("unresolved(")) {
            continue;
        }
        let started = std::time::Instant::now();
        conn.execute_batch(&format!("CREATE INDEX IF NOT EXISTS {name} ON {on}"))?;
        tracing::debug!(
            index = name,
            seconds = started.elapsed().as_secs_f64(),
            "index built"
        );
    }
    if !file_tables_only {
        for name in RETIRED_INDEXES {
            conn.execute_batch(&format!("DROP INDEX IF EXISTS {name}"))?;
        }
    }
    Ok(())
}

#[derive(Debug)]
pub(crate) enum MigrateError {
    Sqlite(rusqlite::Error),
    TooNew(i64),
}

pub(crate) fn version(conn: &Connection) -> rusqlite::Result<i64> {
    conn.pragma_query_value(None, "user_version", |row| row.get(0))
}

/// Brings the schema to [`SCHEMA_VERSION`] in one immediate transaction.
pub(crate) fn migrate(conn: &Connection) -> Result<(), MigrateError> {
    let current = version(conn).map_err(MigrateError::Sqlite)?;
    if current > SCHEMA_VERSION {
        return Err(MigrateError::TooNew(current));
    }
    if current == SCHEMA_VERSION {
        return Ok(());
    }
    let run = || -> rusqlite::Result<()> {
        conn.execute_batch("BEGIN IMMEDIATE")?;
        // Another process may have migrated while we waited for the lock.
        let from = version(conn)?;
        if from < 1 {
            conn.execute_batch(V1)?;
        }
        if from < 2 {
            conn.execute_batch(V2)?;
        }
        if from < 3 {
            conn.execute_batch(V3)?;
        }
        if from < 4 {
            conn.execute_batch(V4)?;
        }
        if from < SCHEMA_VERSION {
            create_indexes(conn, false)?;
            conn.pragma_update(None, "user_version", SCHEMA_VERSION)?;
        }
        conn.execute_batch("COMMIT")
    };
    run().map_err(|e| {
        let _ = conn.execute_batch("ROLLBACK");
        MigrateError::Sqlite(e)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A version 2 database with one published generation keeps its edges and unresolved
    /// references through the migration, each in its file's edge set.
    #[test]
    fn version_2_edges_move_into_per_file_edge_sets() {
        let conn = Connection::open_in_memory().unwrap();
        conn.execute_batch(V1).unwrap();
        conn.execute_batch(V2).unwrap();
        conn.pragma_update(None, "user_version", 2).unwrap();
        conn.execute_batch(
            "INSERT INTO gen_files VALUES (1, 10, 0), (1, 11, 0), (2, 10, 0);
             INSERT INTO nodes(id, file_id, stable_id, kind, name, qname, language, start_line,
               start_col, end_line, end_col, start_byte, end_byte, signature, visibility, modifiers)
             VALUES (100, 10, 's', 'function', 'f', 'a.f', 'python', 1, 0, 1, 0, 0, 0, '', 'public', ''),
                    (101, 11, 't', 'function', 'g', 'b.g', 'python', 1, 0, 1, 0, 0, 0, '', 'public', '');
             INSERT INTO refs VALUES (1000, 11, 101, 'call', 'f', NULL, NULL, 1, 0, 1),
                                     (1001, 10, 100, 'call', 'h', NULL, NULL, 1, 0, 1);
             INSERT INTO edges VALUES (1, 101, 100, 'calls', 'inferred', 'high', 'import', 1000, NULL),
                                      (2, 100, 100, 'calls', 'inferred', 'high', 'scope', NULL, NULL);
             INSERT INTO unresolved VALUES (1, 1001, 'no_candidates', 0), (2, 1001, 'external', 0);",
        )
        .unwrap();
        migrate(&conn).unwrap();
        create_indexes(&conn, false).unwrap();
        let edges: Vec<(i64, i64, i64)> = conn
            .prepare("SELECT generation, src, dst FROM gen_edges ORDER BY generation, src")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(edges, vec![(1, 101, 100), (2, 100, 100)]);
        let unresolved: Vec<(i64, String)> = conn
            .prepare("SELECT generation, reason FROM gen_unresolved ORDER BY generation")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert_eq!(
            unresolved,
            vec![(1, "no_candidates".into()), (2, "external".into())]
        );
        assert_eq!(version(&conn).unwrap(), SCHEMA_VERSION);
    }
}
