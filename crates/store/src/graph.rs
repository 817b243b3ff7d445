//! Whole-generation reads for the in-memory code graph and the analytics over it (issue 6):
//! every node with the properties the graph keeps, every edge as (src, dst, kind, provenance),
//! and the few reference facts dead-code analysis needs (unresolved names, reflection sites,
//! unresolved bases). Kinds are parsed into the model's enums here, so loading ~400k edges
//! allocates no strings.

use rusqlite::params;
use sextant_model::{EdgeKind, NodeKind, Provenance, Visibility};

use crate::{Result, Store};

/// A node as the graph loads it.
#[derive(Debug, Clone)]
pub struct GraphNodeRow {
    pub id: i64,
    pub stable_id: String,
    pub kind: NodeKind,
    pub name: String,
    pub qname: String,
    /// The file's repository-relative path.
    pub path: String,
    pub language: String,
    pub start_line: u32,
    pub end_line: u32,
    pub visibility: Visibility,
    /// Comma-separated modifiers as extracted (`static,async`, decorators as `@text`).
    pub modifiers: String,
    pub complexity: Option<u32>,
    pub parent_id: Option<i64>,
    pub signature: String,
}

/// An edge as the graph loads it (parallel edges are kept; the graph merges them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphEdgeRow {
    pub src: i64,
    pub dst: i64,
    pub kind: EdgeKind,
    pub provenance: Provenance,
}

/// Everything the in-memory graph of one generation is built from.
#[derive(Debug, Clone, Default)]
pub struct GraphRows {
    /// Ordered by path, start byte, id (so dense graph indexes are deterministic).
    pub nodes: Vec<GraphNodeRow>,
    pub edges: Vec<GraphEdgeRow>,
}

/// Unresolved references with one name (local variables left out), per language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnresolvedName {
    pub name: String,
    /// The language of the file the references are written in.
    pub language: String,
    pub count: u64,
}

/// One unresolved reference (local variables left out) with what decides which definitions it
/// could still reach: its kind, receiver, the resolver's reason, and where it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnresolvedUse {
    pub name: String,
    /// The language of the file the reference is written in.
    pub language: String,
    /// `call`, `read`, `type`, `instantiate`, ...
    pub kind: String,
    /// The receiver as written (`self`, `pluggy.hook`), none for a plain name.
    pub receiver: Option<String>,
    /// `external`, `no_candidates`, `unknown_receiver`, `too_many_candidates`, ...
    pub reason: String,
    /// The enclosing definition (or the File node).
    pub src_id: i64,
    pub path: String,
}

/// A reference site by name: who makes it and where (reflection-prone calls).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedRefSource {
    /// The enclosing definition (or the File node).
    pub src_id: i64,
    pub path: String,
    pub name: String,
    pub receiver: Option<String>,
    /// 1-based line of the site.
    pub line: u32,
}

/// An `inherit`/`implement` reference that resolved to nothing in the repository (a base
/// outside the index: `Exception`, `Display`, `models.Model` of an installed package).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnresolvedBase {
    /// The type written with the base, or the File node for `impl Trait for Type`.
    pub src_id: i64,
    /// For `impl Trait for Type`: the implementing type as written.
    pub implementor: Option<String>,
    pub path: String,
    pub name: String,
}

fn parse_or<T: Copy>(text: &str, parse: fn(&str) -> Option<T>, default: T) -> T {
    parse(text).unwrap_or(default)
}

impl Store {
    /// Every node and every edge of a generation, read in one snapshot.
    pub fn graph_rows(&self, generation: i64) -> Result<GraphRows> {
        self.snapshot(|s| {
            Ok(GraphRows {
                nodes: s.graph_nodes(generation)?,
                edges: s.graph_edges(generation)?,
            })
        })
    }

    /// Every node of a generation (File nodes included), by path, start byte and id. Rows
    /// whose kind this build does not know are left out.
    pub fn graph_nodes(&self, generation: i64) -> Result<Vec<GraphNodeRow>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT n.id, n.stable_id, n.kind, n.name, n.qname, f.path, n.language,
                        n.start_line, n.end_line, n.visibility, n.modifiers, n.complexity,
                        n.parent_id, n.signature
                 FROM nodes n
                 JOIN gen_files g ON g.file_id = n.file_id AND g.generation = ?1
                 JOIN file_versions f ON f.id = n.file_id
                 ORDER BY f.path, n.start_byte, n.id",
            )
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        let mut rows = stmt.query([generation]).map_err(|e| self.err(e))?;
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let read = || -> rusqlite::Result<Option<GraphNodeRow>> {
                let Some(kind) = NodeKind::parse(r.get_ref(2)?.as_str()?) else {
                    return Ok(None);
                };
                Ok(Some(GraphNodeRow {
                    id: r.get(0)?,
                    stable_id: r.get(1)?,
                    kind,
                    name: r.get(3)?,
                    qname: r.get(4)?,
                    path: r.get(5)?,
                    language: r.get(6)?,
                    start_line: r.get(7)?,
                    end_line: r.get(8)?,
                    visibility: parse_or(
                        r.get_ref(9)?.as_str()?,
                        Visibility::parse,
                        Visibility::Public,
                    ),
                    modifiers: r.get(10)?,
                    complexity: r.get(11)?,
                    parent_id: r.get(12)?,
                    signature: r.get(13)?,
                }))
            };
            if let Some(row) = read().map_err(|e| self.err(e))? {
                out.push(row);
            }
        }
        Ok(out)
    }

    /// Every edge of a generation: (src, dst, kind, provenance). The one query that knows the
    /// shape of the edges table for the graph; rows with a kind this build does not know are
    /// left out.
    pub fn graph_edges(&self, generation: i64) -> Result<Vec<GraphEdgeRow>> {
        let mut stmt = self
            .conn
            .prepare("SELECT src, dst, kind, provenance FROM gen_edges WHERE generation = ?1")
            .map_err(|e| self.err(e))?;
        let mut out = Vec::new();
        let mut rows = stmt.query([generation]).map_err(|e| self.err(e))?;
        while let Some(r) = rows.next().map_err(|e| self.err(e))? {
            let read = || -> rusqlite::Result<Option<GraphEdgeRow>> {
                let Some(kind) = EdgeKind::parse(r.get_ref(2)?.as_str()?) else {
                    return Ok(None);
                };
                Ok(Some(GraphEdgeRow {
                    src: r.get(0)?,
                    dst: r.get(1)?,
                    kind,
                    provenance: parse_or(
                        r.get_ref(3)?.as_str()?,
                        Provenance::parse,
                        Provenance::Inferred,
                    ),
                }))
            };
            if let Some(row) = read().map_err(|e| self.err(e))? {
                out.push(row);
            }
        }
        Ok(out)
    }

    /// Names of the unresolved references of a generation (local variables and parameters left
    /// out), with the language they are written in and how many there are.
    pub fn unresolved_names(&self, generation: i64) -> Result<Vec<UnresolvedName>> {
        self.conn
            .prepare(
                "SELECT r.name, f.language, COUNT(*) FROM gen_unresolved u
                 JOIN refs r ON r.id = u.ref_id
                 JOIN file_versions f ON f.id = r.file_id
                 WHERE u.generation = ?1 AND u.reason != 'local'
                 GROUP BY r.name, f.language ORDER BY r.name, f.language",
            )
            .and_then(|mut s| {
                s.query_map([generation], |r| {
                    Ok(UnresolvedName {
                        name: r.get(0)?,
                        language: r.get(1)?,
                        count: r.get::<_, i64>(2)? as u64,
                    })
                })?
                .collect()
            })
            .map_err(|e| self.err(e))
    }

    /// Every unresolved reference of a generation but local variables, with its kind,
    /// receiver, reason and file, by name.
    pub fn unresolved_uses(&self, generation: i64) -> Result<Vec<UnresolvedUse>> {
        self.conn
            .prepare(
                "SELECT r.name, f.language, r.kind, r.receiver, u.reason, r.src_id, f.path
                 FROM gen_unresolved u
                 JOIN refs r ON r.id = u.ref_id
                 JOIN file_versions f ON f.id = r.file_id
                 WHERE u.generation = ?1 AND u.reason != 'local'
                 ORDER BY r.name, f.path, r.line, r.col",
            )
            .and_then(|mut s| {
                s.query_map([generation], |r| {
                    Ok(UnresolvedUse {
                        name: r.get(0)?,
                        language: r.get(1)?,
                        kind: r.get(2)?,
                        receiver: r.get(3)?,
                        reason: r.get(4)?,
                        src_id: r.get(5)?,
                        path: r.get(6)?,
                    })
                })?
                .collect()
            })
            .map_err(|e| self.err(e))
    }

    /// Definitions some reference reaches only by a guess at its receiver: the targets of
    /// `unique_member` / `ambiguous_member` edges (a member named like the reference, visible
    /// from its file, while the receiver's type is unknown).
    pub fn guessed_member_targets(&self, generation: i64) -> Result<Vec<i64>> {
        self.conn
            .prepare(
                "SELECT DISTINCT dst FROM gen_edges
                 WHERE generation = ?1 AND rule IN ('unique_member', 'ambiguous_member')
                 ORDER BY dst",
            )
            .and_then(|mut s| s.query_map([generation], |r| r.get(0))?.collect())
            .map_err(|e| self.err(e))
    }

    /// What registration calls hand over: for each call named one of `names` (`set_defaults`,
    /// `add_url_rule`, ...), the definitions that references from the same enclosing
    /// definition, written on the call's line or the two after it, resolved to, as
    /// (call name, target id).
    pub fn registered_targets(
        &self,
        generation: i64,
        names: &[&str],
    ) -> Result<Vec<(String, i64)>> {
        self.conn
            .prepare(
                "SELECT DISTINCT s.name, e.dst FROM refs s
                 JOIN gen_files g ON g.file_id = s.file_id AND g.generation = ?1
                 JOIN refs r ON r.file_id = s.file_id AND r.src_id = s.src_id AND r.id != s.id
                      AND r.line >= s.line AND r.line <= s.line + 2
                      AND r.kind IN ('read', 'call', 'instantiate')
                 JOIN edges e ON e.set_id = g.edge_set AND e.src = s.src_id AND e.ref_id = r.id
                 WHERE s.name IN (SELECT value FROM json_each(?2)) AND s.kind = 'call'
                 ORDER BY s.name, e.dst",
            )
            .and_then(|mut s| {
                s.query_map(params![generation, json_strings(names)], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })?
                .collect()
            })
            .map_err(|e| self.err(e))
    }

    /// Reference sites of a generation naming one of `names` (resolved or not), by path and
    /// position: who calls `getattr`, `globals`, `import_module`, ...
    pub fn ref_sources_named(
        &self,
        generation: i64,
        names: &[&str],
    ) -> Result<Vec<NamedRefSource>> {
        self.conn
            .prepare(
                "SELECT r.src_id, f.path, r.name, r.receiver, r.line FROM refs r
                 JOIN gen_files g ON g.file_id = r.file_id AND g.generation = ?1
                 JOIN file_versions f ON f.id = r.file_id
                 WHERE r.name IN (SELECT value FROM json_each(?2))
                 ORDER BY f.path, r.line, r.col",
            )
            .and_then(|mut s| {
                s.query_map(params![generation, json_strings(names)], |r| {
                    Ok(NamedRefSource {
                        src_id: r.get(0)?,
                        path: r.get(1)?,
                        name: r.get(2)?,
                        receiver: r.get(3)?,
                        line: r.get(4)?,
                    })
                })?
                .collect()
            })
            .map_err(|e| self.err(e))
    }

    /// Every `inherit`/`implement` reference of a generation that resolved to nothing.
    pub fn unresolved_base_refs(&self, generation: i64) -> Result<Vec<UnresolvedBase>> {
        self.conn
            .prepare(
                "SELECT r.src_id, r.implementor, f.path, r.name FROM gen_unresolved u
                 JOIN refs r ON r.id = u.ref_id
                 JOIN file_versions f ON f.id = r.file_id
                 WHERE u.generation = ?1 AND r.kind IN ('inherit', 'implement')
                 ORDER BY f.path, r.line, r.col",
            )
            .and_then(|mut s| {
                s.query_map([generation], |r| {
                    Ok(UnresolvedBase {
                        src_id: r.get(0)?,
                        implementor: r.get(1)?,
                        path: r.get(2)?,
                        name: r.get(3)?,
                    })
                })?
                .collect()
            })
            .map_err(|e| self.err(e))
    }

    /// When a generation started (seconds since the epoch): with the id it tells generations
    /// of a re-created database apart.
    pub fn generation_started_at(&self, generation: i64) -> Result<Option<i64>> {
        use rusqlite::OptionalExtension;
        self.conn
            .query_row(
                "SELECT started_at FROM generations WHERE id = ?1",
                [generation],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.err(e))
    }
}

/// A JSON array of strings for `json_each`.
fn json_strings(items: &[&str]) -> String {
    let mut out = String::from("[");
    for (i, s) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('"');
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
    }
    out.push(']');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_escape() {
        assert_eq!(json_strings(&[]), "[]");
        assert_eq!(json_strings(&["a", "b\"c"]), r#"["a","b\"c"]"#);
    }
}
