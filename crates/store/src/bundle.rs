//! Baseline files (`.sxb`): one published generation exported into a standalone SQLite file, for
//! the shared baseline cache (`SEXTANT_CACHE_DIR`), and imported into another repository database
//! as a new published, not active, generation. The format is documented in `docs/schema.md`.
//!
//! A baseline file holds only the rows its generation uses, with the ids of the database it came
//! from; importing adds an offset to every id (file versions, nodes, references, imports, edge
//! sets) so nothing collides with local rows. The full-text index is carried as the token text
//! of each node (read back from the FTS5 index with `fts5vocab`), re-tokenized on import.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, params};

use crate::schema::{SCHEMA_VERSION, version};
use crate::{Result, Store, StoreError, immutable_uri};

/// The `format` value of a baseline file's `bundle` table.
pub const BUNDLE_FORMAT: &str = "sextant-baseline-1";

/// The row-holding tables of a baseline file, with the count recorded at export (a file whose
/// tables hold other counts is refused).
const COUNTED: &[&str] = &[
    "generations",
    "gen_files",
    "skipped",
    "file_versions",
    "nodes",
    "refs",
    "imports",
    "bindings",
    "edges",
    "unresolved",
    "fts_text",
];

/// What a baseline file says about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BundleInfo {
    /// The repository identity (the same on every clone: see `sextant-git`'s `repository_key`).
    pub repo_key: String,
    pub commit: String,
    pub branch: Option<String>,
    /// The schema version of the rows.
    pub schema_version: i64,
    /// The generation's id in the database it was exported from.
    pub source_generation: i64,
    /// Unix seconds.
    pub created_at: i64,
    pub files: u64,
    pub nodes: u64,
    /// The generation's stored summary (JSON; its `context` decides whether it can be reused).
    pub stats: Option<String>,
}

/// What an import must match.
#[derive(Debug, Clone, Copy)]
pub struct BundleExpect<'a> {
    pub repo_key: &'a str,
    /// The commit the file must hold (`None`: any).
    pub commit: Option<&'a str>,
}

fn refused(path: &Path, reason: impl Into<String>) -> StoreError {
    StoreError::BadBaseline {
        path: path.display().to_string(),
        reason: reason.into(),
    }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

/// A unique temporary name next to `dest` (same directory, so the final rename is atomic).
fn temp_name(dest: &Path) -> PathBuf {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "baseline".into());
    dest.with_file_name(format!(
        ".{name}.{}-{n}-{nanos:08x}.tmp",
        std::process::id()
    ))
}

impl Store {
    /// Exports published generation `generation` (clean: no uncommitted file) into the baseline
    /// file `dest`, tagged with `repo_key`. The file is written under a temporary name in the same
    /// directory and renamed into place, so a reader never sees a partial file; an existing file
    /// is replaced. Returns the file's size in bytes.
    pub fn export_generation(&self, generation: i64, repo_key: &str, dest: &Path) -> Result<u64> {
        let header = self
            .generation(generation)?
            .ok_or_else(|| StoreError::Other(format!("generation {generation} does not exist")))?;
        if header.status != "published" {
            return Err(StoreError::Other(format!(
                "generation {generation} is not published"
            )));
        }
        let Some(commit) = header.commit.clone().filter(|_| !header.dirty) else {
            return Err(StoreError::Other(format!(
                "generation {generation} is not a clean generation of a commit (it has uncommitted files or no commit)"
            )));
        };
        let tmp = temp_name(dest);
        let result = self.write_bundle(generation, repo_key, &commit, &header.branch, &tmp);
        match result.and_then(|()| {
            std::fs::rename(&tmp, dest).map_err(|e| {
                StoreError::Other(format!(
                    "cannot move {} to {}: {e}",
                    tmp.display(),
                    dest.display()
                ))
            })
        }) {
            Ok(()) => Ok(std::fs::metadata(dest).map(|m| m.len()).unwrap_or(0)),
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                Err(e)
            }
        }
    }

    fn write_bundle(
        &self,
        generation: i64,
        repo_key: &str,
        commit: &str,
        branch: &Option<String>,
        tmp: &Path,
    ) -> Result<()> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let out = Connection::open_with_flags(tmp, flags).map_err(|e| crate::wrap(tmp, e))?;
        let run = || -> rusqlite::Result<()> {
            // A private file renamed into place once complete: no journal needed.
            out.execute_batch(
                "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA page_size = 8192;",
            )?;
            out.execute("ATTACH ?1 AS src", [source_uri(&self.path)])?;
            out.execute_batch("BEGIN")?;
            let g = generation;
            let t = std::time::Instant::now();
            out.execute_batch(&format!(
                "CREATE TABLE generations AS SELECT id, commit_id, branch, dirty, status,
                   started_at, finished_at, stats FROM src.generations WHERE id = {g};
                 CREATE TABLE gen_files AS SELECT generation, file_id, uncommitted, edge_set,
                   set_hash FROM src.gen_files WHERE generation = {g} ORDER BY file_id;
                 CREATE TABLE skipped AS SELECT generation, path, reason, size FROM src.skipped
                   WHERE generation = {g};
                 CREATE TABLE file_versions AS SELECT id, path, hash, language, module, extractor,
                   size, lines, lossy, node_id, diagnostics FROM src.file_versions
                   WHERE id IN (SELECT file_id FROM main.gen_files) ORDER BY id;
                 CREATE TABLE nodes AS SELECT n.id, n.file_id, n.stable_id, n.kind, n.name,
                   n.qname, n.language, n.parent_id, n.start_line, n.start_col, n.end_line,
                   n.end_col, n.start_byte, n.end_byte, n.signature, n.doc, n.visibility,
                   n.modifiers, n.complexity, n.type_text
                   FROM main.gen_files g JOIN src.nodes n ON n.file_id = g.file_id ORDER BY n.id;
                 CREATE TABLE refs AS SELECT r.id, r.file_id, r.src_id, r.kind, r.name, r.receiver,
                   r.implementor, r.line, r.col, r.end_col
                   FROM main.gen_files g JOIN src.refs r ON r.file_id = g.file_id ORDER BY r.id;
                 CREATE TABLE imports AS SELECT i.id, i.file_id, i.src_id, i.source, i.name,
                   i.alias, i.wildcard, i.line, i.col
                   FROM main.gen_files g JOIN src.imports i ON i.file_id = g.file_id ORDER BY i.id;
                 CREATE TABLE bindings AS SELECT b.file_id, b.scope_id, b.name, b.type_text,
                   b.value, b.line
                   FROM main.gen_files g JOIN src.bindings b ON b.file_id = g.file_id
                   ORDER BY b.file_id, b.rowid;
                 CREATE TABLE edges AS SELECT e.set_id, e.src, e.dst, e.kind, e.provenance,
                   e.confidence, e.rule, e.ref_id, e.import_id
                   FROM main.gen_files g JOIN src.edges e ON e.set_id = g.edge_set;
                 CREATE TABLE unresolved AS SELECT u.ref_id, u.set_id, u.reason, u.candidates
                   FROM main.gen_files g JOIN src.unresolved u ON u.set_id = g.edge_set;"
            ))?;
            tracing::debug!(seconds = t.elapsed().as_secs_f64(), "baseline export: rows");
            let t = std::time::Instant::now();
            out.execute_batch(
                "CREATE VIRTUAL TABLE temp.fts_vocab USING fts5vocab(src, nodes_fts, instance);
                 CREATE TABLE fts_text(rowid INTEGER PRIMARY KEY, name_tokens, qname_tokens,
                   signature, doc);
                 CREATE TABLE bundle(key TEXT PRIMARY KEY, value TEXT NOT NULL);",
            )?;
            write_fts_text(&out)?;
            out.execute_batch("DROP TABLE temp.fts_vocab")?;
            tracing::debug!(seconds = t.elapsed().as_secs_f64(), "baseline export: fts");
            let mut meta: Vec<(String, String)> = vec![
                ("format".into(), BUNDLE_FORMAT.into()),
                ("schema_version".into(), SCHEMA_VERSION.to_string()),
                ("repo_key".into(), repo_key.into()),
                ("commit".into(), commit.into()),
                ("source_generation".into(), generation.to_string()),
                ("created_at".into(), now().to_string()),
            ];
            if let Some(branch) = branch {
                meta.push(("branch".into(), branch.clone()));
            }
            for table in COUNTED {
                let n: i64 =
                    out.query_row(&format!("SELECT count(*) FROM main.{table}"), [], |r| {
                        r.get(0)
                    })?;
                meta.push((format!("rows.{table}"), n.to_string()));
            }
            {
                let mut stmt = out.prepare("INSERT INTO bundle(key, value) VALUES (?1, ?2)")?;
                for (k, v) in &meta {
                    stmt.execute(params![k, v])?;
                }
            }
            out.execute_batch("COMMIT")?;
            out.execute_batch("DETACH src")?;
            out.pragma_update(None, "user_version", SCHEMA_VERSION)?;
            Ok(())
        };
        let result = run().map_err(|e| crate::wrap(tmp, e));
        if result.is_err() {
            let _ = out.execute_batch("ROLLBACK");
        }
        out.close().map_err(|(_, e)| crate::wrap(tmp, e))?;
        result
    }

    /// Imports the baseline file `src` as a new published (not active) generation, after checking
    /// it: the same schema version, intact, of repository `expect.repo_key` and (when given) of
    /// commit `expect.commit`. One transaction: a refused or failed import changes nothing.
    /// Returns the new generation's id. Call with the index lock.
    pub fn import_generation(&mut self, src: &Path, expect: BundleExpect<'_>) -> Result<i64> {
        let t = std::time::Instant::now();
        let info = read_bundle_info(src)?;
        tracing::debug!(
            seconds = t.elapsed().as_secs_f64(),
            "baseline import: check"
        );
        if info.repo_key != expect.repo_key {
            return Err(refused(
                src,
                format!(
                    "it belongs to another repository (key {}, this repository is {})",
                    info.repo_key, expect.repo_key
                ),
            ));
        }
        if let Some(commit) = expect.commit
            && info.commit != commit
        {
            return Err(refused(
                src,
                format!("it holds commit {}, not {commit}", info.commit),
            ));
        }
        let c = &self.conn;
        c.execute("ATTACH ?1 AS bundle", [immutable_uri(src)])
            .map_err(|e| refused(src, format!("cannot open it: {e}")))?;
        let result = (|| -> rusqlite::Result<i64> {
            c.execute_batch("BEGIN IMMEDIATE")?;
            let max = |sql: &str| -> rusqlite::Result<i64> { c.query_row(sql, [], |r| r.get(0)) };
            let f = max("SELECT COALESCE(MAX(id), 0) FROM main.file_versions")?;
            let n = max("SELECT COALESCE(MAX(id), 0) FROM main.nodes")?;
            let r = max("SELECT COALESCE(MAX(id), 0) FROM main.refs")?;
            let i = max("SELECT COALESCE(MAX(id), 0) FROM main.imports")?;
            let s = max(
                "SELECT MAX(COALESCE((SELECT MAX(edge_set) FROM main.gen_files), 0),
                                COALESCE((SELECT MAX(set_id) FROM main.edges), 0),
                                COALESCE((SELECT MAX(set_id) FROM main.unresolved), 0))",
            )?;
            // An empty database (a fresh home pulling its first baseline) loads without its
            // secondary indexes and builds them once, as a first index does.
            let empty = f == 0 && n == 0;
            if empty {
                for (name, _) in crate::schema::SECONDARY_INDEXES {
                    c.execute_batch(&format!("DROP INDEX IF EXISTS main.{name}"))?;
                }
            }
            c.execute(
                "INSERT INTO main.generations(commit_id, branch, dirty, status, started_at,
                   finished_at, stats)
                 SELECT commit_id, branch, 0, 'published', started_at, finished_at, stats
                 FROM bundle.generations",
                [],
            )?;
            let g = c.last_insert_rowid();
            c.execute_batch(&format!(
                "INSERT INTO main.file_versions(id, path, hash, language, module, extractor, size,
                   lines, lossy, node_id, diagnostics)
                 SELECT id + {f}, path, hash, language, module, extractor, size, lines, lossy,
                   node_id + {n}, diagnostics FROM bundle.file_versions;
                 INSERT INTO main.gen_files(generation, file_id, uncommitted, edge_set, set_hash)
                 SELECT {g}, file_id + {f}, 0, edge_set + {s}, set_hash FROM bundle.gen_files;
                 INSERT INTO main.skipped(generation, path, reason, size)
                 SELECT {g}, path, reason, size FROM bundle.skipped;
                 INSERT INTO main.nodes(id, file_id, stable_id, kind, name, qname, language,
                   parent_id, start_line, start_col, end_line, end_col, start_byte, end_byte,
                   signature, doc, visibility, modifiers, complexity, type_text)
                 SELECT id + {n}, file_id + {f}, stable_id, kind, name, qname, language,
                   parent_id + {n}, start_line, start_col, end_line, end_col, start_byte,
                   end_byte, signature, doc, visibility, modifiers, complexity, type_text
                 FROM bundle.nodes;
                 INSERT INTO main.nodes_fts(rowid, name_tokens, qname_tokens, signature, doc)
                 SELECT rowid + {n}, name_tokens, qname_tokens, signature, doc
                 FROM bundle.fts_text;
                 INSERT INTO main.refs(id, file_id, src_id, kind, name, receiver, implementor,
                   line, col, end_col)
                 SELECT id + {r}, file_id + {f}, src_id + {n}, kind, name, receiver, implementor,
                   line, col, end_col FROM bundle.refs;
                 INSERT INTO main.imports(id, file_id, src_id, source, name, alias, wildcard,
                   line, col)
                 SELECT id + {i}, file_id + {f}, src_id + {n}, source, name, alias, wildcard,
                   line, col FROM bundle.imports;
                 INSERT INTO main.bindings(file_id, scope_id, name, type_text, value, line)
                 SELECT file_id + {f}, scope_id + {n}, name, type_text, value, line
                 FROM bundle.bindings;
                 INSERT INTO main.edges(set_id, src, dst, kind, provenance, confidence, rule,
                   ref_id, import_id)
                 SELECT set_id + {s}, src + {n}, dst + {n}, kind, provenance, confidence, rule,
                   ref_id + {r}, import_id + {i} FROM bundle.edges;
                 INSERT INTO main.unresolved(ref_id, set_id, reason, candidates)
                 SELECT ref_id + {r}, set_id + {s}, reason, candidates FROM bundle.unresolved;"
            ))?;
            tracing::debug!(seconds = t.elapsed().as_secs_f64(), "baseline import: rows");
            if empty {
                crate::schema::create_indexes(c, false)?;
            }
            tracing::debug!(
                seconds = t.elapsed().as_secs_f64(),
                "baseline import: indexes"
            );
            c.execute_batch("COMMIT")?;
            Ok(g)
        })();
        let result = result.map_err(|e| {
            let _ = c.execute_batch("ROLLBACK");
            refused(src, format!("import failed, nothing was changed: {e}"))
        });
        let _ = c.execute_batch("DETACH bundle");
        let g = result?;
        let _ = c.execute_batch("PRAGMA analysis_limit = 1000; ANALYZE;");
        tracing::debug!(
            seconds = t.elapsed().as_secs_f64(),
            "baseline import: analyzed"
        );
        Ok(g)
    }
}

/// Fills `fts_text` with the tokens of each exported node, column by column in position order,
/// read from the source's FTS5 index (`temp.fts_vocab`, an `instance` vocabulary table). The rows
/// come ordered by term: they are gathered in memory (terms shared) and sorted per column, which
/// costs far less than SQLite sorting every instance for an ordered `group_concat`.
fn write_fts_text(out: &Connection) -> rusqlite::Result<()> {
    use std::collections::HashMap;
    use std::rc::Rc;
    /// The (position, term) tokens of a node's four FTS columns.
    type Columns = [Vec<(i64, Rc<str>)>; 4];
    let mut docs: HashMap<i64, Columns> = out
        .prepare("SELECT id FROM main.nodes")?
        .query_map([], |r| r.get::<_, i64>(0))?
        .map(|id| id.map(|id| (id, Default::default())))
        .collect::<rusqlite::Result<_>>()?;
    let mut stmt = out.prepare("SELECT term, doc, col, offset FROM temp.fts_vocab")?;
    let mut rows = stmt.query([])?;
    let mut term: Rc<str> = Rc::from("");
    while let Some(r) = rows.next()? {
        let Some(columns) = docs.get_mut(&r.get::<_, i64>(1)?) else {
            continue;
        };
        let col = match r.get_ref(2)?.as_str().unwrap_or("") {
            "name_tokens" => 0,
            "qname_tokens" => 1,
            "signature" => 2,
            "doc" => 3,
            _ => continue,
        };
        let text = r.get_ref(0)?.as_str().unwrap_or("");
        if &*term != text {
            term = Rc::from(text);
        }
        columns[col].push((r.get(3)?, term.clone()));
    }
    let mut insert = out.prepare(
        "INSERT INTO fts_text(rowid, name_tokens, qname_tokens, signature, doc)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    let mut ids: Vec<i64> = docs.keys().copied().collect();
    ids.sort_unstable();
    for id in ids {
        let columns = docs.remove(&id).unwrap_or_default();
        let [a, b, c, d] = columns.map(|mut tokens| {
            tokens.sort_unstable_by_key(|(offset, _)| *offset);
            (!tokens.is_empty()).then(|| {
                tokens
                    .iter()
                    .map(|(_, t)| &**t)
                    .collect::<Vec<&str>>()
                    .join(" ")
            })
        });
        insert.execute(params![id, a, b, c, d])?;
    }
    Ok(())
}

/// `file:` URI of a repository database for a read-only attach.
fn source_uri(path: &Path) -> String {
    let uri = immutable_uri(path);
    uri.trim_end_matches("?immutable=1").to_string() + "?mode=ro"
}

/// Reads and checks a baseline file: its format and schema version, its integrity
/// (`PRAGMA quick_check`) and the row counts recorded at export. Any failure is a
/// [`StoreError::BadBaseline`] that says why.
pub fn read_bundle_info(path: &Path) -> Result<BundleInfo> {
    if !path.is_file() {
        return Err(refused(path, "no such file"));
    }
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
        | OpenFlags::SQLITE_OPEN_NO_MUTEX
        | OpenFlags::SQLITE_OPEN_URI;
    let conn = Connection::open_with_flags(immutable_uri(path), flags)
        .map_err(|e| refused(path, format!("not a readable SQLite file: {e}")))?;
    let not_sqlite = |e: rusqlite::Error| {
        refused(
            path,
            format!("not a Sextant baseline file, or truncated or corrupt: {e}"),
        )
    };
    let schema = version(&conn).map_err(not_sqlite)?;
    let meta: std::collections::HashMap<String, String> = conn
        .prepare("SELECT key, value FROM bundle")
        .and_then(|mut s| {
            s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<rusqlite::Result<_>>()
        })
        .map_err(not_sqlite)?;
    if meta.get("format").map(String::as_str) != Some(BUNDLE_FORMAT) {
        return Err(refused(
            path,
            format!(
                "unknown format {:?} (this build reads {BUNDLE_FORMAT})",
                meta.get("format")
            ),
        ));
    }
    let recorded: Option<i64> = meta.get("schema_version").and_then(|v| v.parse().ok());
    if schema != SCHEMA_VERSION || recorded != Some(schema) {
        return Err(refused(
            path,
            format!("it has schema version {schema}, this build reads {SCHEMA_VERSION}"),
        ));
    }
    let check: String = conn
        .query_row("PRAGMA quick_check(1)", [], |r| r.get(0))
        .map_err(not_sqlite)?;
    if check != "ok" {
        return Err(refused(
            path,
            format!("truncated or corrupt (integrity check: {check})"),
        ));
    }
    for table in COUNTED {
        let want: Option<i64> = meta
            .get(&format!("rows.{table}"))
            .and_then(|v| v.parse().ok());
        let have: i64 = conn
            .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
            .map_err(not_sqlite)?;
        if want != Some(have) {
            return Err(refused(
                path,
                format!("truncated or corrupt ({table} holds {have} rows, {want:?} were written)"),
            ));
        }
    }
    if meta.get("rows.generations").map(String::as_str) != Some("1") {
        return Err(refused(path, "it must hold exactly one generation"));
    }
    let get = |k: &str| {
        meta.get(k)
            .cloned()
            .ok_or_else(|| refused(path, format!("missing {k}")))
    };
    let num = |k: &str| -> Result<i64> {
        get(k)?
            .parse()
            .map_err(|_| refused(path, format!("{k} is not a number")))
    };
    let stats: Option<String> = conn
        .query_row("SELECT stats FROM generations", [], |r| r.get(0))
        .map_err(not_sqlite)?;
    Ok(BundleInfo {
        stats,
        repo_key: get("repo_key")?,
        commit: get("commit")?,
        branch: meta.get("branch").cloned(),
        schema_version: schema,
        source_generation: num("source_generation")?,
        created_at: num("created_at")?,
        files: num("rows.file_versions")? as u64,
        nodes: num("rows.nodes")? as u64,
    })
}
