//! Schema and migrations (`PRAGMA user_version`). Documented in `docs/schema.md`; keep both in step.

use rusqlite::Connection;

/// The schema version this build writes.
pub const SCHEMA_VERSION: i64 = 2;

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

/// Secondary indexes of the bulk tables, as (name, `table(columns)`); the edge indexes come last.
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
    ("edges_src", "edges(generation, src)"),
    ("edges_dst", "edges(generation, dst)"),
];

/// Indexes of earlier builds that no query needs any more; dropped when a database is opened.
/// `refs(src_id)`: the references made from a node are found among its file's (`refs_file`).
pub(crate) const RETIRED_INDEXES: &[&str] = &["refs_src"];

/// Creates the secondary indexes that are missing: all of them, or only those of the
/// file-version tables (nodes, refs, imports).
pub(crate) fn create_indexes(conn: &Connection, file_tables_only: bool) -> rusqlite::Result<()> {
    for (name, on) in SECONDARY_INDEXES {
        if file_tables_only && on.starts_with("edges(") {
            continue;
        }
        conn.execute_batch(&format!("CREATE INDEX IF NOT EXISTS {name} ON {on}"))?;
    }
    if !file_tables_only {
        for name in RETIRED_INDEXES {
            conn.execute_batch(&format!("DROP INDEX IF EXISTS {name}"))?;
        }
    }
    Ok(())
}

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
