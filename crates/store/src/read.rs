//! Read queries. Every query is scoped to one generation (the active one unless told otherwise)
//! through `gen_files`, and returns plain rows.

use rusqlite::{OptionalExtension, Row, params};
use sextant_model::Span;

use crate::{Result, Store};

/// A generation's header.
#[derive(Debug, Clone)]
pub struct GenerationInfo {
    pub id: i64,
    pub commit: Option<String>,
    pub branch: Option<String>,
    pub dirty: bool,
    pub status: String,
    pub started_at: i64,
    pub finished_at: Option<i64>,
    /// The index summary, JSON.
    pub stats: Option<String>,
}

/// A file version of some generations, as [`Store::each_version_of_generations`] hands it out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoredVersion<'a> {
    pub id: i64,
    pub path: &'a str,
    pub hash: &'a str,
    pub language: &'a str,
    pub module: &'a str,
    pub extractor: &'a str,
    pub node_id: i64,
    /// The position, in the generations given, of the first that holds the version.
    pub rank: usize,
    /// Does the generation asked about (`marked`) hold it?
    pub marked: bool,
}

/// A file of a generation.
#[derive(Debug, Clone)]
pub struct FileInfo {
    pub id: i64,
    pub path: String,
    pub hash: String,
    pub language: String,
    pub module: String,
    pub extractor: String,
    pub size: u64,
    pub lines: u32,
    pub node_id: i64,
    pub uncommitted: bool,
    pub diagnostics: Option<String>,
}

/// A skipped file of a generation.
#[derive(Debug, Clone)]
pub struct SkippedRow {
    pub path: String,
    pub reason: String,
    pub size: u64,
}

/// A node with its file path.
#[derive(Debug, Clone)]
pub struct NodeRow {
    pub id: i64,
    pub file_id: i64,
    pub path: String,
    pub stable_id: String,
    pub kind: String,
    pub name: String,
    pub qname: String,
    pub language: String,
    pub parent_id: Option<i64>,
    pub span: Span,
    pub signature: String,
    pub doc: Option<String>,
    pub visibility: String,
    pub modifiers: String,
    pub complexity: Option<u32>,
}

/// An edge seen from one end.
#[derive(Debug, Clone)]
pub struct EdgeHit {
    /// The node at the other end.
    pub other: i64,
    pub kind: String,
    pub provenance: String,
    pub confidence: String,
    pub rule: String,
    /// Where the reference is written: (path, line, col).
    pub site: Option<(String, u32, u32)>,
}

/// A reference site (used for unresolved samples).
#[derive(Debug, Clone)]
pub struct RefSite {
    pub ref_id: i64,
    pub path: String,
    pub line: u32,
    pub col: u32,
    pub kind: String,
    pub name: String,
    pub receiver: Option<String>,
    pub src_id: i64,
    pub reason: String,
    pub candidates: u32,
    /// Language of the file the reference is in.
    pub language: String,
}

/// Counts by key.
pub type Histogram = Vec<(String, u64)>;

pub(crate) const NODE_COLUMNS: &str =
    "n.id, n.file_id, f.path, n.stable_id, n.kind, n.name, n.qname, n.language,
    n.parent_id, n.start_line, n.start_col, n.end_line, n.end_col, n.start_byte, n.end_byte,
    n.signature, n.doc, n.visibility, n.modifiers, n.complexity";

pub(crate) fn node_row(r: &Row<'_>) -> rusqlite::Result<NodeRow> {
    Ok(NodeRow {
        id: r.get(0)?,
        file_id: r.get(1)?,
        path: r.get(2)?,
        stable_id: r.get(3)?,
        kind: r.get(4)?,
        name: r.get(5)?,
        qname: r.get(6)?,
        language: r.get(7)?,
        parent_id: r.get(8)?,
        span: Span {
            start_line: r.get(9)?,
            start_col: r.get(10)?,
            end_line: r.get(11)?,
            end_col: r.get(12)?,
            start_byte: r.get(13)?,
            end_byte: r.get(14)?,
        },
        signature: r.get(15)?,
        doc: r.get(16)?,
        visibility: r.get(17)?,
        modifiers: r.get(18)?,
        complexity: r.get(19)?,
    })
}

/// Optional search filters (empty = any).
#[derive(Debug, Clone, Default)]
pub struct Filters {
    pub kinds: Vec<String>,
    pub language: Option<String>,
    pub path_prefix: Option<String>,
    /// Leave File nodes out.
    pub skip_files: bool,
    /// Regular expressions and degree bounds (`search_filters.rs`).
    pub graph: crate::GraphFilters,
}

impl Filters {
    fn sql(&self) -> String {
        let mut s = self.base_sql();
        s.push_str(&self.graph.degree_sql());
        s
    }

    /// Every condition but the degree bounds.
    pub(crate) fn base_sql(&self) -> String {
        let mut s = String::new();
        if !self.kinds.is_empty() {
            s.push_str(" AND n.kind IN (SELECT value FROM json_each(?3))");
        }
        if self.language.is_some() {
            s.push_str(" AND n.language = ?4");
        }
        if self.path_prefix.is_some() {
            s.push_str(" AND (f.path = ?5 OR f.path LIKE ?5 || '%' ESCAPE '\\')");
        }
        if self.skip_files {
            s.push_str(" AND n.kind != 'file'");
        }
        s.push_str(&self.graph.matcher_sql());
        s
    }

    pub(crate) fn kinds_json(&self) -> String {
        let quoted: Vec<String> = self
            .kinds
            .iter()
            .map(|k| format!("\"{}\"", k.replace(['"', '\\'], "")))
            .collect();
        format!("[{}]", quoted.join(","))
    }

    pub(crate) fn prefix(&self) -> Option<String> {
        self.path_prefix.as_ref().map(|p| {
            p.trim_end_matches('/')
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_")
        })
    }
}

pub use Filters as SearchFilters;

impl Store {
    /// The active (published) generation id, 0 when nothing was ever published.
    pub fn active_generation_id(&self) -> Result<i64> {
        self.conn
            .query_row(
                "SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'active_generation'",
                [],
                |r| r.get(0),
            )
            .map_err(|e| self.err(e))
    }

    /// A generation's header.
    pub fn generation(&self, id: i64) -> Result<Option<GenerationInfo>> {
        self.conn
            .query_row(
                "SELECT id, commit_id, branch, dirty, status, started_at, finished_at, stats
                 FROM generations WHERE id = ?1",
                [id],
                |r| {
                    Ok(GenerationInfo {
                        id: r.get(0)?,
                        commit: r.get(1)?,
                        branch: r.get(2)?,
                        dirty: r.get(3)?,
                        status: r.get(4)?,
                        started_at: r.get(5)?,
                        finished_at: r.get(6)?,
                        stats: r.get(7)?,
                    })
                },
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// Every generation, newest first.
    pub fn generations(&self) -> Result<Vec<GenerationInfo>> {
        let ids: Vec<i64> = self
            .conn
            .prepare("SELECT id FROM generations ORDER BY id DESC")
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        for id in ids {
            out.extend(self.generation(id)?);
        }
        Ok(out)
    }

    /// The files of a generation, by path.
    pub fn files(&self, generation: i64) -> Result<Vec<FileInfo>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT f.id, f.path, f.hash, f.language, f.module, f.extractor, f.size, f.lines,
                        f.node_id, g.uncommitted, f.diagnostics
                 FROM gen_files g JOIN file_versions f ON f.id = g.file_id
                 WHERE g.generation = ?1 ORDER BY f.path",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([generation], |r| {
                Ok(FileInfo {
                    id: r.get(0)?,
                    path: r.get(1)?,
                    hash: r.get(2)?,
                    language: r.get(3)?,
                    module: r.get(4)?,
                    extractor: r.get(5)?,
                    size: r.get::<_, i64>(6)? as u64,
                    lines: r.get(7)?,
                    node_id: r.get(8)?,
                    uncommitted: r.get(9)?,
                    diagnostics: r.get(10)?,
                })
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.err(e))?;
        Ok(rows)
    }

    /// Hands `each` the distinct file versions of `generations`, each once, in no particular
    /// order, with the position of the first generation (in the order given) that holds it and
    /// whether `marked` holds it. One pass over the versions with nothing gathered: a run's
    /// memory does not grow with the number of stored versions.
    pub fn each_version_of_generations(
        &self,
        generations: &[i64],
        marked: Option<i64>,
        mut each: impl FnMut(StoredVersion<'_>),
    ) -> Result<()> {
        if generations.is_empty() {
            return Ok(());
        }
        // Ids of the store's own generations, written into the statement.
        let list = generations
            .iter()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(",");
        let rank = generations
            .iter()
            .enumerate()
            .map(|(i, g)| format!(" WHEN {g} THEN {i}"))
            .collect::<String>();
        // Grouped by the index on `gen_files(file_id)`, which SQLite walks in order: no
        // temporary table of the versions.
        let sql = format!(
            "SELECT f.id, f.path, f.hash, f.language, f.module, f.extractor, f.node_id,
                    MIN(CASE g.generation{rank} END), MAX(g.generation = ?1)
             FROM gen_files g JOIN file_versions f ON f.id = g.file_id
             WHERE g.generation IN ({list})
             GROUP BY g.file_id"
        );
        let mut stmt = self.conn.prepare(&sql).map_err(|e| self.err(e))?;
        let mut rows = stmt.query([marked.unwrap_or(0)]).map_err(|e| self.err(e))?;
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let str_at = |i: usize| -> rusqlite::Result<&str> {
                r.get_ref(i)?.as_str().map_err(|e| {
                    rusqlite::Error::FromSqlConversionFailure(
                        i,
                        rusqlite::types::Type::Text,
                        e.into(),
                    )
                })
            };
            let version = (|| {
                Ok::<_, rusqlite::Error>(StoredVersion {
                    id: r.get(0)?,
                    path: str_at(1)?,
                    hash: str_at(2)?,
                    language: str_at(3)?,
                    module: str_at(4)?,
                    extractor: str_at(5)?,
                    node_id: r.get(6)?,
                    rank: r.get::<_, i64>(7)? as usize,
                    marked: marked.is_some() && r.get::<_, bool>(8)?,
                })
            })()
            .map_err(|e| self.err(e))?;
            each(version);
        }
        Ok(())
    }

    /// The file of a generation at a path.
    pub fn file_at(&self, generation: i64, path: &str) -> Result<Option<FileInfo>> {
        Ok(self
            .files_matching(generation, path)?
            .into_iter()
            .find(|f| f.path == path))
    }

    fn files_matching(&self, generation: i64, path: &str) -> Result<Vec<FileInfo>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT f.id, f.path, f.hash, f.language, f.module, f.extractor, f.size, f.lines,
                        f.node_id, g.uncommitted, f.diagnostics
                 FROM file_versions f JOIN gen_files g ON g.file_id = f.id AND g.generation = ?1
                 WHERE f.path = ?2",
            )
            .map_err(|e| self.err(e))?;
        stmt.query_map(params![generation, path], |r| {
            Ok(FileInfo {
                id: r.get(0)?,
                path: r.get(1)?,
                hash: r.get(2)?,
                language: r.get(3)?,
                module: r.get(4)?,
                extractor: r.get(5)?,
                size: r.get::<_, i64>(6)? as u64,
                lines: r.get(7)?,
                node_id: r.get(8)?,
                uncommitted: r.get(9)?,
                diagnostics: r.get(10)?,
            })
        })
        .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
        .map_err(|e| self.err(e))
    }

    /// Skipped files of a generation.
    pub fn skipped(&self, generation: i64) -> Result<Vec<SkippedRow>> {
        self.conn
            .prepare("SELECT path, reason, size FROM skipped WHERE generation = ?1 ORDER BY path")
            .and_then(|mut s| {
                s.query_map([generation], |r| {
                    Ok(SkippedRow {
                        path: r.get(0)?,
                        reason: r.get(1)?,
                        size: r.get::<_, i64>(2)? as u64,
                    })
                })?
                .collect()
            })
            .map_err(|e| self.err(e))
    }

    /// One node by id.
    pub fn node(&self, id: i64) -> Result<Option<NodeRow>> {
        let sql = format!(
            "SELECT {NODE_COLUMNS} FROM nodes n JOIN file_versions f ON f.id = n.file_id WHERE n.id = ?1"
        );
        self.conn
            .prepare_cached(&sql)
            .and_then(|mut s| s.query_row([id], node_row).optional())
            .map_err(|e| self.err(e))
    }

    fn nodes_where(
        &self,
        generation: i64,
        condition: &str,
        value: &str,
        limit: u32,
    ) -> Result<Vec<NodeRow>> {
        let sql = format!(
            "SELECT {NODE_COLUMNS} FROM nodes n
             JOIN gen_files g ON g.file_id = n.file_id AND g.generation = ?1
             JOIN file_versions f ON f.id = n.file_id
             WHERE {condition} ORDER BY f.path, n.start_byte LIMIT ?3"
        );
        self.conn
            .prepare_cached(&sql)
            .and_then(|mut s| {
                s.query_map(params![generation, value, limit], node_row)?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(|e| self.err(e))
    }

    /// Nodes of a generation with this stable id.
    pub fn nodes_by_stable_id(&self, generation: i64, stable_id: &str) -> Result<Vec<NodeRow>> {
        self.nodes_where(generation, "n.stable_id = ?2", stable_id, 50)
    }

    /// Nodes of a generation with exactly this name.
    pub fn nodes_by_name(&self, generation: i64, name: &str, limit: u32) -> Result<Vec<NodeRow>> {
        // The case-insensitive index finds the candidates; the second test keeps exact case.
        self.nodes_where(
            generation,
            "n.name = ?2 COLLATE NOCASE AND n.name = ?2",
            name,
            limit,
        )
    }

    /// Nodes of a generation with exactly this qualified name.
    pub fn nodes_by_qname(&self, generation: i64, qname: &str, limit: u32) -> Result<Vec<NodeRow>> {
        self.nodes_where(generation, "n.qname = ?2", qname, limit)
    }

    /// Direct children (contained nodes) of a node.
    pub fn children(&self, id: i64) -> Result<Vec<NodeRow>> {
        let sql = format!(
            "SELECT {NODE_COLUMNS} FROM nodes n JOIN file_versions f ON f.id = n.file_id
             WHERE n.parent_id = ?1 ORDER BY n.start_byte"
        );
        self.conn
            .prepare_cached(&sql)
            .and_then(|mut s| s.query_map([id], node_row)?.collect())
            .map_err(|e| self.err(e))
    }

    /// Search stage 1: exact name (case-insensitive, case-sensitive first).
    pub fn search_exact(
        &self,
        generation: i64,
        name: &str,
        filters: &Filters,
        limit: u32,
    ) -> Result<Vec<NodeRow>> {
        let sql = format!(
            "SELECT {NODE_COLUMNS} FROM nodes n
             JOIN gen_files g ON g.file_id = n.file_id AND g.generation = ?1
             JOIN file_versions f ON f.id = n.file_id
             WHERE n.name = ?2 COLLATE NOCASE {}
             ORDER BY n.name = ?2 DESC, n.kind = 'file', f.path, n.start_byte, n.id LIMIT ?6",
            filters.sql()
        );
        self.search_with(&sql, generation, name, filters, limit)
    }

    /// Search stage 2: name prefix (case-insensitive), shortest names first.
    pub fn search_prefix(
        &self,
        generation: i64,
        prefix: &str,
        filters: &Filters,
        limit: u32,
    ) -> Result<Vec<NodeRow>> {
        // A range on the case-insensitive name index: every name starting with `prefix`.
        let sql = format!(
            "SELECT {NODE_COLUMNS} FROM nodes n
             JOIN gen_files g ON g.file_id = n.file_id AND g.generation = ?1
             JOIN file_versions f ON f.id = n.file_id
             WHERE n.name COLLATE NOCASE >= ?2 AND n.name COLLATE NOCASE < (?2 || char(1114111)) {}
             ORDER BY length(n.name), n.name, f.path, n.start_byte, n.id LIMIT ?6",
            filters.sql()
        );
        self.search_with(&sql, generation, prefix, filters, limit)
    }

    /// Search stage 3: BM25 over split identifiers, qualified names, signatures and docs.
    pub fn search_fts(
        &self,
        generation: i64,
        fts_query: &str,
        filters: &Filters,
        limit: u32,
    ) -> Result<Vec<NodeRow>> {
        // Rank inside FTS5 first (its top-k path), then join and filter the best few hundred:
        // joining every match before ranking cost ~35 ms for common words on Django.
        let sql = format!(
            "SELECT {NODE_COLUMNS} FROM
               (SELECT rowid AS id, rank FROM nodes_fts WHERE nodes_fts MATCH ?2
                ORDER BY rank LIMIT (?6 * 20 + 200)) AS hit
             JOIN nodes n ON n.id = hit.id
             JOIN gen_files g ON g.file_id = n.file_id AND g.generation = ?1
             JOIN file_versions f ON f.id = n.file_id
             WHERE 1 {}
             ORDER BY hit.rank, n.id LIMIT ?6",
            filters.sql()
        );
        self.search_with(&sql, generation, fts_query, filters, limit)
    }

    fn search_with(
        &self,
        sql: &str,
        generation: i64,
        text: &str,
        filters: &Filters,
        limit: u32,
    ) -> Result<Vec<NodeRow>> {
        self.register_matchers(&filters.graph)?;
        let mut stmt = self.conn.prepare_cached(sql).map_err(|e| self.err(e))?;
        let kinds = filters.kinds_json();
        let prefix = filters.prefix();
        let mut raw = stmt
            .raw_bind_parameter(1, generation)
            .and_then(|_| stmt.raw_bind_parameter(2, text));
        if !filters.kinds.is_empty() {
            raw = raw.and_then(|_| stmt.raw_bind_parameter(3, &kinds));
        }
        if let Some(lang) = &filters.language {
            raw = raw.and_then(|_| stmt.raw_bind_parameter(4, lang));
        }
        if let Some(p) = &prefix {
            raw = raw.and_then(|_| stmt.raw_bind_parameter(5, p));
        }
        raw = raw.and_then(|_| stmt.raw_bind_parameter(6, limit));
        raw.map_err(|e| self.err(e))?;
        let mut rows = stmt.raw_query();
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(|e| self.err(e))? {
            out.push(node_row(row).map_err(|e| self.err(e))?);
        }
        Ok(out)
    }

    /// Distinct definition names of a generation (for "did you mean").
    pub fn all_names(&self, generation: i64) -> Result<Vec<String>> {
        self.conn
            .prepare_cached(
                "SELECT DISTINCT n.name FROM nodes n
                 JOIN gen_files g ON g.file_id = n.file_id AND g.generation = ?1 WHERE n.kind != 'file'",
            )
            .and_then(|mut s| s.query_map([generation], |r| r.get(0))?.collect())
            .map_err(|e| self.err(e))
    }

    fn edges(
        &self,
        generation: i64,
        id: i64,
        outgoing: bool,
        kinds: &[&str],
    ) -> Result<Vec<EdgeHit>> {
        let (this, other) = if outgoing {
            ("src", "dst")
        } else {
            ("dst", "src")
        };
        let sql = format!(
            "SELECT e.{other}, e.kind, e.provenance, e.confidence, e.rule, f.path, r.line, r.col
             FROM gen_edges e
             LEFT JOIN refs r ON r.id = e.ref_id
             LEFT JOIN file_versions f ON f.id = r.file_id
             WHERE e.generation = ?1 AND e.{this} = ?2
             ORDER BY f.path, r.line, r.col"
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![generation, id], |r| {
                let path: Option<String> = r.get(5)?;
                let line: Option<u32> = r.get(6)?;
                let col: Option<u32> = r.get(7)?;
                Ok(EdgeHit {
                    other: r.get(0)?,
                    kind: r.get(1)?,
                    provenance: r.get(2)?,
                    confidence: r.get(3)?,
                    rule: r.get(4)?,
                    site: match (path, line, col) {
                        (Some(p), Some(l), Some(c)) => Some((p, l, c)),
                        _ => None,
                    },
                })
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.err(e))?;
        Ok(rows
            .into_iter()
            .filter(|h| kinds.is_empty() || kinds.contains(&h.kind.as_str()))
            .collect())
    }

    /// Edges leaving a node (optionally of some kinds).
    pub fn edges_from(&self, generation: i64, id: i64, kinds: &[&str]) -> Result<Vec<EdgeHit>> {
        self.edges(generation, id, true, kinds)
    }

    /// Edges arriving at a node (optionally of some kinds).
    pub fn edges_to(&self, generation: i64, id: i64, kinds: &[&str]) -> Result<Vec<EdgeHit>> {
        self.edges(generation, id, false, kinds)
    }

    /// Unresolved references of a generation matching `condition` on `refs r` (bound to ?2),
    /// optionally of some kinds.
    fn unresolved_where(
        &self,
        generation: i64,
        condition: &str,
        value: &dyn rusqlite::ToSql,
        kinds: &[&str],
    ) -> Result<Vec<RefSite>> {
        let sql = format!(
            "SELECT r.id, f.path, r.line, r.col, r.kind, r.name, r.receiver, r.src_id, u.reason,
                    u.candidates, f.language
             FROM refs r
             JOIN gen_unresolved u ON u.ref_id = r.id AND u.generation = ?1
             JOIN file_versions f ON f.id = r.file_id
             WHERE {condition}
             ORDER BY f.path, r.line, r.col"
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map(params![generation, value], |r| {
                Ok(RefSite {
                    ref_id: r.get(0)?,
                    path: r.get(1)?,
                    line: r.get(2)?,
                    col: r.get(3)?,
                    kind: r.get(4)?,
                    name: r.get(5)?,
                    receiver: r.get(6)?,
                    src_id: r.get(7)?,
                    reason: r.get(8)?,
                    candidates: r.get(9)?,
                    language: r.get(10)?,
                })
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(|e| self.err(e))?;
        Ok(rows
            .into_iter()
            .filter(|r| kinds.is_empty() || kinds.contains(&r.kind.as_str()))
            .collect())
    }

    /// Unresolved (or ambiguous-beyond-limit) references of a generation with this name, in
    /// files of one of `languages` (all when empty): total count and the first `sample` sites.
    pub fn unresolved_named(
        &self,
        generation: i64,
        name: &str,
        kinds: &[&str],
        languages: &[&str],
        sample: u32,
    ) -> Result<(u64, Vec<RefSite>)> {
        // A local variable or parameter is never a use of a definition.
        let mut rows = self.unresolved_where(
            generation,
            "r.name = ?2 AND u.reason != 'local'",
            &name,
            kinds,
        )?;
        if !languages.is_empty() {
            rows.retain(|r| languages.contains(&r.language.as_str()));
        }
        let count = rows.len() as u64;
        Ok((count, rows.into_iter().take(sample as usize).collect()))
    }

    /// Unresolved references made from inside a node (for callees completeness).
    pub fn unresolved_from(
        &self,
        generation: i64,
        src: i64,
        kinds: &[&str],
    ) -> Result<Vec<RefSite>> {
        // A node's references are among its file's (`refs_file`; no index on `src_id`).
        self.unresolved_where(
            generation,
            "r.file_id = (SELECT file_id FROM nodes WHERE id = ?2) AND r.src_id = ?2",
            &src,
            kinds,
        )
    }

    fn histogram(&self, sql: &str, generation: i64) -> Result<Histogram> {
        self.conn
            .prepare(sql)
            .and_then(|mut s| {
                s.query_map([generation], |r| {
                    Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)? as u64))
                })?
                .collect()
            })
            .map_err(|e| self.err(e))
    }

    /// Nodes by kind.
    pub fn node_histogram(&self, generation: i64) -> Result<Histogram> {
        self.histogram(
            "SELECT n.kind, COUNT(*) FROM nodes n JOIN gen_files g ON g.file_id = n.file_id
             WHERE g.generation = ?1 GROUP BY n.kind ORDER BY COUNT(*) DESC, n.kind",
            generation,
        )
    }

    /// Nodes by language (files excluded).
    pub fn language_histogram(&self, generation: i64) -> Result<Histogram> {
        self.histogram(
            "SELECT f.language, COUNT(*) FROM gen_files g JOIN file_versions f ON f.id = g.file_id
             WHERE g.generation = ?1 GROUP BY f.language ORDER BY COUNT(*) DESC, f.language",
            generation,
        )
    }

    /// Edges by `kind/provenance`.
    pub fn edge_histogram(&self, generation: i64) -> Result<Histogram> {
        self.histogram(
            "SELECT kind || '/' || provenance, COUNT(*) FROM gen_edges WHERE generation = ?1
             GROUP BY kind, provenance ORDER BY kind, provenance",
            generation,
        )
    }

    /// References by kind.
    pub fn ref_histogram(&self, generation: i64) -> Result<Histogram> {
        self.histogram(
            "SELECT r.kind, COUNT(*) FROM refs r JOIN gen_files g ON g.file_id = r.file_id
             WHERE g.generation = ?1 GROUP BY r.kind ORDER BY COUNT(*) DESC",
            generation,
        )
    }

    /// Unresolved references by reason.
    pub fn unresolved_histogram(&self, generation: i64) -> Result<Histogram> {
        self.histogram(
            "SELECT reason, COUNT(*) FROM gen_unresolved WHERE generation = ?1 GROUP BY reason ORDER BY COUNT(*) DESC",
            generation,
        )
    }

    /// Imports of a generation.
    pub fn import_count(&self, generation: i64) -> Result<u64> {
        self.conn
            .query_row(
                "SELECT COUNT(*) FROM imports i JOIN gen_files g ON g.file_id = i.file_id WHERE g.generation = ?1",
                [generation],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n as u64)
            .map_err(|e| self.err(e))
    }
}

/// An unresolved reference: (path, line, name, receiver, reason).
pub type UnresolvedDump = (String, u32, String, Option<String>, String);

/// An edge with both ends' qualified names (for exports and tests).
#[derive(Debug, Clone)]
pub struct EdgeDump {
    pub src: String,
    pub dst: String,
    pub kind: String,
    pub provenance: String,
    pub rule: String,
    /// Site of the reference, when the edge came from one: (path, line).
    pub site: Option<(String, u32)>,
}

impl Store {
    /// Every edge of a generation, ordered by site.
    pub fn all_edges(&self, generation: i64) -> Result<Vec<EdgeDump>> {
        self.conn
            .prepare(
                "SELECT s.qname, d.qname, e.kind, e.provenance, e.rule, f.path, COALESCE(r.line, i.line)
                 FROM gen_edges e
                 JOIN nodes s ON s.id = e.src
                 JOIN nodes d ON d.id = e.dst
                 LEFT JOIN refs r ON r.id = e.ref_id
                 LEFT JOIN imports i ON i.id = e.import_id
                 LEFT JOIN file_versions f ON f.id = COALESCE(r.file_id, i.file_id)
                 WHERE e.generation = ?1
                 ORDER BY f.path, COALESCE(r.line, i.line), s.qname, d.qname, e.kind",
            )
            .and_then(|mut s| {
                s.query_map([generation], |r| {
                    let path: Option<String> = r.get(5)?;
                    let line: Option<u32> = r.get(6)?;
                    Ok(EdgeDump {
                        src: r.get(0)?,
                        dst: r.get(1)?,
                        kind: r.get(2)?,
                        provenance: r.get(3)?,
                        rule: r.get(4)?,
                        site: path.zip(line),
                    })
                })?
                .collect()
            })
            .map_err(|e| self.err(e))
    }

    /// Every unresolved reference of a generation: (path, line, name, receiver, reason).
    pub fn all_unresolved(&self, generation: i64) -> Result<Vec<UnresolvedDump>> {
        self.conn
            .prepare(
                "SELECT f.path, r.line, r.name, r.receiver, u.reason
                 FROM gen_unresolved u JOIN refs r ON r.id = u.ref_id
                 JOIN file_versions f ON f.id = r.file_id
                 WHERE u.generation = ?1 ORDER BY f.path, r.line, r.col",
            )
            .and_then(|mut s| {
                s.query_map([generation], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
                })?
                .collect()
            })
            .map_err(|e| self.err(e))
    }
}

impl Store {
    /// Nodes of a generation whose qualified name starts with `prefix` (a type's out-of-line
    /// members: Rust `impl` blocks, Go methods, C++ `A::f` definitions).
    pub fn nodes_with_qname_prefix(
        &self,
        generation: i64,
        prefix: &str,
        limit: u32,
    ) -> Result<Vec<NodeRow>> {
        let sql = format!(
            "SELECT {NODE_COLUMNS} FROM nodes n
             JOIN gen_files g ON g.file_id = n.file_id AND g.generation = ?1
             JOIN file_versions f ON f.id = n.file_id
             WHERE n.qname > ?2 AND n.qname < ?2 || char(1114111)
             ORDER BY f.path, n.start_byte LIMIT ?3"
        );
        self.conn
            .prepare_cached(&sql)
            .and_then(|mut s| {
                s.query_map(params![generation, prefix, limit], node_row)?
                    .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(|e| self.err(e))
    }
}

/// A node's identity and place, for whole-generation passes (evaluation, export, ingestion).
#[derive(Debug, Clone)]
pub struct NodeBrief {
    pub id: i64,
    pub file_id: i64,
    pub kind: String,
    pub name: String,
    pub qname: String,
    pub parent_id: Option<i64>,
    /// 1-based lines, 0-based byte columns.
    pub start: (u32, u32),
    pub end: (u32, u32),
    pub signature: String,
}

/// A reference site, for whole-generation passes.
#[derive(Debug, Clone)]
pub struct RefBrief {
    pub id: i64,
    pub file_id: i64,
    pub src_id: i64,
    pub kind: String,
    pub name: String,
    pub receiver: Option<String>,
    pub line: u32,
    pub col: u32,
}

/// An edge made from a reference site.
#[derive(Debug, Clone)]
pub struct RefEdge {
    pub ref_id: i64,
    pub src: i64,
    pub dst: i64,
    pub kind: String,
    pub provenance: String,
    pub rule: String,
}

impl Store {
    /// Every node of a generation (File nodes included), by file and position.
    pub fn generation_nodes(&self, generation: i64) -> Result<Vec<NodeBrief>> {
        self.conn
            .prepare(
                "SELECT n.id, n.file_id, n.kind, n.name, n.qname, n.parent_id,
                        n.start_line, n.start_col, n.end_line, n.end_col, n.signature
                 FROM nodes n JOIN gen_files g ON g.file_id = n.file_id AND g.generation = ?1
                 ORDER BY n.file_id, n.start_byte, n.id",
            )
            .and_then(|mut s| {
                s.query_map([generation], |r| {
                    Ok(NodeBrief {
                        id: r.get(0)?,
                        file_id: r.get(1)?,
                        kind: r.get(2)?,
                        name: r.get(3)?,
                        qname: r.get(4)?,
                        parent_id: r.get(5)?,
                        start: (r.get(6)?, r.get(7)?),
                        end: (r.get(8)?, r.get(9)?),
                        signature: r.get(10)?,
                    })
                })?
                .collect()
            })
            .map_err(|e| self.err(e))
    }

    /// Every reference site of a generation.
    pub fn generation_refs(&self, generation: i64) -> Result<Vec<RefBrief>> {
        self.conn
            .prepare(
                "SELECT r.id, r.file_id, r.src_id, r.kind, r.name, r.receiver, r.line, r.col
                 FROM refs r JOIN gen_files g ON g.file_id = r.file_id AND g.generation = ?1
                 ORDER BY r.file_id, r.line, r.col, r.id",
            )
            .and_then(|mut s| {
                s.query_map([generation], |r| {
                    Ok(RefBrief {
                        id: r.get(0)?,
                        file_id: r.get(1)?,
                        src_id: r.get(2)?,
                        kind: r.get(3)?,
                        name: r.get(4)?,
                        receiver: r.get(5)?,
                        line: r.get(6)?,
                        col: r.get(7)?,
                    })
                })?
                .collect()
            })
            .map_err(|e| self.err(e))
    }

    /// Every edge of a generation that was made from a reference site.
    pub fn generation_ref_edges(&self, generation: i64) -> Result<Vec<RefEdge>> {
        self.conn
            .prepare(
                "SELECT ref_id, src, dst, kind, provenance, rule FROM gen_edges
                 WHERE generation = ?1 AND ref_id IS NOT NULL ORDER BY ref_id, dst",
            )
            .and_then(|mut s| {
                s.query_map([generation], |r| {
                    Ok(RefEdge {
                        ref_id: r.get(0)?,
                        src: r.get(1)?,
                        dst: r.get(2)?,
                        kind: r.get(3)?,
                        provenance: r.get(4)?,
                        rule: r.get(5)?,
                    })
                })?
                .collect()
            })
            .map_err(|e| self.err(e))
    }

    /// Every unresolved reference of a generation: (ref id, reason).
    pub fn generation_unresolved(&self, generation: i64) -> Result<Vec<(i64, String)>> {
        self.conn
            .prepare("SELECT ref_id, reason FROM gen_unresolved WHERE generation = ?1")
            .and_then(|mut s| {
                s.query_map([generation], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect()
            })
            .map_err(|e| self.err(e))
    }
}

/// An imported binding, for whole-generation passes.
#[derive(Debug, Clone)]
pub struct ImportBrief {
    pub id: i64,
    pub file_id: i64,
    pub name: Option<String>,
    pub alias: Option<String>,
    /// Where the import statement starts.
    pub line: u32,
}

impl Store {
    /// Every import of a generation.
    pub fn generation_imports(&self, generation: i64) -> Result<Vec<ImportBrief>> {
        self.conn
            .prepare(
                "SELECT i.id, i.file_id, i.name, i.alias, i.line
                 FROM imports i JOIN gen_files g ON g.file_id = i.file_id AND g.generation = ?1
                 ORDER BY i.file_id, i.line, i.id",
            )
            .and_then(|mut s| {
                s.query_map([generation], |r| {
                    Ok(ImportBrief {
                        id: r.get(0)?,
                        file_id: r.get(1)?,
                        name: r.get(2)?,
                        alias: r.get(3)?,
                        line: r.get(4)?,
                    })
                })?
                .collect()
            })
            .map_err(|e| self.err(e))
    }

    /// Every edge of a generation made from an import, keyed by import id in `ref_id`.
    pub fn generation_import_edges(&self, generation: i64) -> Result<Vec<RefEdge>> {
        self.conn
            .prepare(
                "SELECT import_id, src, dst, kind, provenance, rule FROM gen_edges
                 WHERE generation = ?1 AND import_id IS NOT NULL ORDER BY import_id, dst",
            )
            .and_then(|mut s| {
                s.query_map([generation], |r| {
                    Ok(RefEdge {
                        ref_id: r.get(0)?,
                        src: r.get(1)?,
                        dst: r.get(2)?,
                        kind: r.get(3)?,
                        provenance: r.get(4)?,
                        rule: r.get(5)?,
                    })
                })?
                .collect()
            })
            .map_err(|e| self.err(e))
    }
}

impl Store {
    /// Every node of a generation with its path, stable id and language (File nodes included),
    /// by path and position (for whole-graph exports).
    pub fn generation_node_rows(&self, generation: i64) -> Result<Vec<NodeRow>> {
        let sql = format!(
            "SELECT {NODE_COLUMNS} FROM nodes n
             JOIN gen_files g ON g.file_id = n.file_id AND g.generation = ?1
             JOIN file_versions f ON f.id = n.file_id
             ORDER BY f.path, n.start_byte, n.id"
        );
        self.conn
            .prepare(&sql)
            .and_then(|mut s| s.query_map([generation], node_row)?.collect())
            .map_err(|e| self.err(e))
    }
}

impl Store {
    /// Every edge of a generation made neither from a reference nor from an import
    /// (`overrides`), keyed by `ref_id = 0`.
    pub fn generation_derived_edges(&self, generation: i64) -> Result<Vec<RefEdge>> {
        self.conn
            .prepare(
                "SELECT src, dst, kind, provenance, rule FROM gen_edges
                 WHERE generation = ?1 AND ref_id IS NULL AND import_id IS NULL
                 ORDER BY src, dst, kind",
            )
            .and_then(|mut s| {
                s.query_map([generation], |r| {
                    Ok(RefEdge {
                        ref_id: 0,
                        src: r.get(0)?,
                        dst: r.get(1)?,
                        kind: r.get(2)?,
                        provenance: r.get(3)?,
                        rule: r.get(4)?,
                    })
                })?
                .collect()
            })
            .map_err(|e| self.err(e))
    }
}

impl Store {
    /// Every node of one file version (its File node included), by position: for mapping lines
    /// to their enclosing definitions (grep hits, changed lines).
    pub fn file_nodes(&self, file_id: i64) -> Result<Vec<NodeRow>> {
        let sql = format!(
            "SELECT {NODE_COLUMNS} FROM nodes n JOIN file_versions f ON f.id = n.file_id
             WHERE n.file_id = ?1 ORDER BY n.start_byte, n.id"
        );
        self.conn
            .prepare_cached(&sql)
            .and_then(|mut s| s.query_map([file_id], node_row)?.collect())
            .map_err(|e| self.err(e))
    }
}

impl Store {
    /// Edges leaving (`outgoing`) or arriving at a node, of some kinds (empty = all), with the
    /// site of the reference or of the import statement that made each one (derived edges such
    /// as `overrides` have none). Ordered by site.
    pub fn edges_with_sites(
        &self,
        generation: i64,
        id: i64,
        outgoing: bool,
        kinds: &[&str],
    ) -> Result<Vec<EdgeHit>> {
        let (this, other) = if outgoing {
            ("src", "dst")
        } else {
            ("dst", "src")
        };
        let sql = format!(
            "SELECT e.{other}, e.kind, e.provenance, e.confidence, e.rule, f.path,
                    COALESCE(r.line, i.line), COALESCE(r.col, i.col)
             FROM gen_edges e
             LEFT JOIN refs r ON r.id = e.ref_id
             LEFT JOIN imports i ON i.id = e.import_id
             LEFT JOIN file_versions f ON f.id = COALESCE(r.file_id, i.file_id)
             WHERE e.generation = ?1 AND e.{this} = ?2
               AND (?3 = '[]' OR e.kind IN (SELECT value FROM json_each(?3)))
             ORDER BY f.path, COALESCE(r.line, i.line), COALESCE(r.col, i.col), e.{other}"
        );
        let kinds = json_list(kinds);
        let mut stmt = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        stmt.query_map(params![generation, id, kinds], |r| {
            let path: Option<String> = r.get(5)?;
            let line: Option<u32> = r.get(6)?;
            let col: Option<u32> = r.get(7)?;
            Ok(EdgeHit {
                other: r.get(0)?,
                kind: r.get(1)?,
                provenance: r.get(2)?,
                confidence: r.get(3)?,
                rule: r.get(4)?,
                site: match (path, line, col) {
                    (Some(p), Some(l), Some(c)) => Some((p, l, c)),
                    _ => None,
                },
            })
        })
        .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
        .map_err(|e| self.err(e))
    }

    /// Every node nested inside a node (children, their children, ...), at most `limit`.
    pub fn descendant_ids(&self, id: i64, limit: u32) -> Result<Vec<i64>> {
        self.conn
            .prepare_cached(
                "WITH RECURSIVE d(id) AS (
                     SELECT id FROM nodes WHERE parent_id = ?1
                     UNION SELECT n.id FROM nodes n JOIN d ON n.parent_id = d.id
                 )
                 SELECT id FROM d LIMIT ?2",
            )
            .and_then(|mut s| s.query_map(params![id, limit], |r| r.get(0))?.collect())
            .map_err(|e| self.err(e))
    }

    /// Unresolved `inherit`/`implement` references naming the bases of a type: those made from
    /// the type itself, and those of `impl Trait for Type` blocks in the type's file (made from
    /// the file, with the type as implementor). Both sit in the type's file.
    pub fn unresolved_bases(
        &self,
        generation: i64,
        id: i64,
        name: &str,
        path: &str,
    ) -> Result<Vec<RefSite>> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT r.id, f.path, r.line, r.col, r.kind, r.name, r.receiver, r.src_id,
                        u.reason, u.candidates, f.language
                 FROM refs r
                 JOIN gen_unresolved u ON u.ref_id = r.id AND u.generation = ?1
                 JOIN file_versions f ON f.id = r.file_id
                 WHERE r.file_id = (SELECT file_id FROM nodes WHERE id = ?2)
                   AND r.kind IN ('inherit', 'implement')
                   AND (r.src_id = ?2 OR (r.implementor = ?3 AND f.path = ?4))
                 ORDER BY f.path, r.line, r.col",
            )
            .map_err(|e| self.err(e))?;
        stmt.query_map(params![generation, id, name, path], |r| {
            Ok(RefSite {
                ref_id: r.get(0)?,
                path: r.get(1)?,
                line: r.get(2)?,
                col: r.get(3)?,
                kind: r.get(4)?,
                name: r.get(5)?,
                receiver: r.get(6)?,
                src_id: r.get(7)?,
                reason: r.get(8)?,
                candidates: r.get(9)?,
                language: r.get(10)?,
            })
        })
        .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
        .map_err(|e| self.err(e))
    }

    /// The nodes with the most incoming edges of some kinds, leaving out nodes of `skip_kinds`
    /// (files, documents) and ambiguous edges (a guess between same-named candidates would rank
    /// every `new` high): (node id, edges, distinct source nodes), most edges first.
    pub fn most_depended_on(
        &self,
        generation: i64,
        kinds: &[&str],
        skip_kinds: &[&str],
        limit: u32,
    ) -> Result<Vec<(i64, u64, u64)>> {
        self.conn
            .prepare_cached(
                "SELECT e.dst, COUNT(*), COUNT(DISTINCT e.src) FROM gen_edges e
                 JOIN nodes n ON n.id = e.dst
                 WHERE e.generation = ?1 AND e.kind IN (SELECT value FROM json_each(?2))
                   AND e.provenance != 'ambiguous'
                   AND n.kind NOT IN (SELECT value FROM json_each(?3))
                 GROUP BY e.dst ORDER BY COUNT(*) DESC, COUNT(DISTINCT e.src) DESC, e.dst
                 LIMIT ?4",
            )
            .and_then(|mut s| {
                s.query_map(
                    params![generation, json_list(kinds), json_list(skip_kinds), limit],
                    |r| {
                        Ok((
                            r.get(0)?,
                            r.get::<_, i64>(1)? as u64,
                            r.get::<_, i64>(2)? as u64,
                        ))
                    },
                )?
                .collect()
            })
            .map_err(|e| self.err(e))
    }

    /// Definitions per file version of a generation (File nodes left out): (file id, count).
    pub fn symbol_counts_by_file(&self, generation: i64) -> Result<Vec<(i64, u64)>> {
        self.conn
            .prepare_cached(
                "SELECT n.file_id, COUNT(*) FROM nodes n
                 JOIN gen_files g ON g.file_id = n.file_id AND g.generation = ?1
                 WHERE n.kind != 'file' GROUP BY n.file_id",
            )
            .and_then(|mut s| {
                s.query_map([generation], |r| {
                    Ok((r.get(0)?, r.get::<_, i64>(1)? as u64))
                })?
                .collect()
            })
            .map_err(|e| self.err(e))
    }

    /// Paths of the files of a generation with a reference to the bare name `name` (no
    /// receiver: `x.__name__ = ...` does not count) made at top level (from the File node
    /// itself), e.g. Python's `if __name__ == "__main__":`.
    pub fn files_with_top_level_ref(&self, generation: i64, name: &str) -> Result<Vec<String>> {
        self.conn
            .prepare_cached(
                "SELECT DISTINCT f.path FROM refs r
                 JOIN file_versions f ON f.id = r.file_id
                 JOIN gen_files g ON g.file_id = f.id AND g.generation = ?1
                 WHERE r.name = ?2 AND r.src_id = f.node_id AND r.receiver IS NULL
                 ORDER BY f.path",
            )
            .and_then(|mut s| {
                s.query_map(params![generation, name], |r| r.get(0))?
                    .collect()
            })
            .map_err(|e| self.err(e))
    }
}

/// A JSON array of strings (bound to `json_each`).
fn json_list(items: &[&str]) -> String {
    let quoted: Vec<String> = items
        .iter()
        .map(|k| format!("\"{}\"", k.replace(['"', '\\'], "")))
        .collect();
    format!("[{}]", quoted.join(","))
}
