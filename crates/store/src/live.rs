//! Reads of a whole published generation for the live index (issue 5): each file version's edge
//! set, and every edge and unresolved reference with the file whose set holds it.

use crate::{Result, Store};

/// An edge as stored, with the file version whose edge set holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEdge {
    pub file_id: i64,
    pub src: i64,
    pub dst: i64,
    pub kind: String,
    pub provenance: String,
    pub confidence: String,
    pub rule: String,
    pub ref_id: Option<i64>,
    pub import_id: Option<i64>,
}

/// An unresolved reference as stored, with its file version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredUnresolved {
    pub file_id: i64,
    pub ref_id: i64,
    pub reason: String,
    pub candidates: u32,
}

impl Store {
    /// `(file version, edge set)` of every file of a generation.
    pub fn generation_sets(&self, generation: i64) -> Result<Vec<(i64, i64)>> {
        self.conn
            .prepare(
                "SELECT file_id, edge_set FROM gen_files WHERE generation = ?1 ORDER BY file_id",
            )
            .and_then(|mut s| {
                s.query_map([generation], |r| Ok((r.get(0)?, r.get(1)?)))?
                    .collect()
            })
            .map_err(|e| self.err(e))
    }

    /// `(file version, edge set, content fingerprint)` of every file of a generation.
    pub fn generation_set_hashes(&self, generation: i64) -> Result<Vec<(i64, i64, Option<i64>)>> {
        let mut rows = Vec::new();
        self.each_set_hash(generation, |f, s, h| rows.push((f, s, h)))?;
        Ok(rows)
    }

    /// Hands `each` the `(file version, edge set, content fingerprint)` of every file of a
    /// generation, one at a time, by file version.
    pub fn each_set_hash(
        &self,
        generation: i64,
        mut each: impl FnMut(i64, i64, Option<i64>),
    ) -> Result<()> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT file_id, edge_set, set_hash FROM gen_files WHERE generation = ?1
                 ORDER BY file_id",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([generation], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .map_err(|e| self.err(e))?;
        for row in rows {
            let (f, s, h) = row.map_err(|e| self.err(e))?;
            each(f, s, h);
        }
        Ok(())
    }

    /// Every edge and unresolved reference of a generation, each with its file version.
    pub fn generation_resolution(
        &self,
        generation: i64,
    ) -> Result<(Vec<StoredEdge>, Vec<StoredUnresolved>)> {
        let edges = self
            .conn
            .prepare(
                "SELECT g.file_id, e.src, e.dst, e.kind, e.provenance, e.confidence, e.rule,
                        e.ref_id, e.import_id
                 FROM gen_files g JOIN edges e ON e.set_id = g.edge_set
                 WHERE g.generation = ?1",
            )
            .and_then(|mut s| {
                s.query_map([generation], |r| {
                    Ok(StoredEdge {
                        file_id: r.get(0)?,
                        src: r.get(1)?,
                        dst: r.get(2)?,
                        kind: r.get(3)?,
                        provenance: r.get(4)?,
                        confidence: r.get(5)?,
                        rule: r.get(6)?,
                        ref_id: r.get(7)?,
                        import_id: r.get(8)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(|e| self.err(e))?;
        let unresolved = self
            .conn
            .prepare(
                "SELECT g.file_id, u.ref_id, u.reason, u.candidates
                 FROM gen_files g JOIN unresolved u ON u.set_id = g.edge_set
                 WHERE g.generation = ?1",
            )
            .and_then(|mut s| {
                s.query_map([generation], |r| {
                    Ok(StoredUnresolved {
                        file_id: r.get(0)?,
                        ref_id: r.get(1)?,
                        reason: r.get(2)?,
                        candidates: r.get(3)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()
            })
            .map_err(|e| self.err(e))?;
        Ok((edges, unresolved))
    }
}

impl Store {
    /// What the resolver needs of the file versions `files` (the live index loads only the
    /// versions it does not hold when it moves to another generation); per file in id order.
    pub fn file_facts(&self, files: &[i64]) -> Result<crate::Reused> {
        use sextant_model::{NodeKind, RefKind};
        let c = &self.conn;
        let run = || -> rusqlite::Result<crate::Reused> {
            let mut out = crate::Reused::default();
            let mut nodes = c.prepare_cached(
                "SELECT id, file_id, kind, name, qname, parent_id, modifiers, type_text
                 FROM nodes WHERE file_id = ?1 ORDER BY id",
            )?;
            let mut refs = c.prepare_cached(
                "SELECT id, file_id, src_id, kind, name, receiver, implementor
                 FROM refs WHERE file_id = ?1 ORDER BY id",
            )?;
            let mut imports = c.prepare_cached(
                "SELECT id, file_id, src_id, source, name, alias, wildcard
                 FROM imports WHERE file_id = ?1 ORDER BY id",
            )?;
            let mut bindings = c.prepare_cached(
                "SELECT file_id, scope_id, name, type_text, value, line
                 FROM bindings WHERE file_id = ?1 ORDER BY rowid",
            )?;
            for &file in files {
                for row in nodes.query_map([file], |r| {
                    let kind: String = r.get(2)?;
                    Ok(crate::ResolveNode {
                        id: r.get(0)?,
                        file_id: r.get(1)?,
                        kind: NodeKind::parse(&kind).unwrap_or(NodeKind::Variable),
                        name: r.get(3)?,
                        qname: r.get(4)?,
                        parent_id: r.get(5)?,
                        modifiers: r.get(6)?,
                        type_text: r.get(7)?,
                    })
                })? {
                    out.nodes.push(row?);
                }
                for row in refs.query_map([file], |r| {
                    let kind: String = r.get(3)?;
                    Ok(crate::ResolveRef {
                        id: r.get(0)?,
                        file_id: r.get(1)?,
                        src_id: r.get(2)?,
                        kind: RefKind::parse(&kind).unwrap_or(RefKind::Read),
                        name: r.get(4)?,
                        receiver: r.get(5)?,
                        implementor: r.get(6)?,
                    })
                })? {
                    out.refs.push(row?);
                }
                for row in imports.query_map([file], |r| {
                    Ok(crate::ResolveImport {
                        id: r.get(0)?,
                        file_id: r.get(1)?,
                        src_id: r.get(2)?,
                        source: r.get(3)?,
                        name: r.get(4)?,
                        alias: r.get(5)?,
                        wildcard: r.get(6)?,
                    })
                })? {
                    out.imports.push(row?);
                }
                for row in bindings.query_map([file], |r| {
                    Ok(crate::BindingRow {
                        file_id: r.get(0)?,
                        scope_id: r.get(1)?,
                        name: r.get(2)?,
                        type_text: r.get(3)?,
                        value: r.get(4)?,
                        line: r.get(5)?,
                    })
                })? {
                    out.bindings.push(row?);
                }
            }
            Ok(out)
        };
        run().map_err(|e| self.err(e))
    }

    /// The edges and unresolved references of the edge sets `sets`, given as `(file version,
    /// edge set)`: each row with the file version whose set holds it.
    pub fn sets_resolution(
        &self,
        sets: &[(i64, i64)],
    ) -> Result<(Vec<StoredEdge>, Vec<StoredUnresolved>)> {
        let c = &self.conn;
        let run = || -> rusqlite::Result<(Vec<StoredEdge>, Vec<StoredUnresolved>)> {
            let mut edges = Vec::new();
            let mut unresolved = Vec::new();
            let mut e_stmt = c.prepare_cached(
                "SELECT src, dst, kind, provenance, confidence, rule, ref_id, import_id
                 FROM edges WHERE set_id = ?1",
            )?;
            let mut u_stmt = c.prepare_cached(
                "SELECT ref_id, reason, candidates FROM unresolved WHERE set_id = ?1",
            )?;
            for &(file, set) in sets {
                for row in e_stmt.query_map([set], |r| {
                    Ok(StoredEdge {
                        file_id: file,
                        src: r.get(0)?,
                        dst: r.get(1)?,
                        kind: r.get(2)?,
                        provenance: r.get(3)?,
                        confidence: r.get(4)?,
                        rule: r.get(5)?,
                        ref_id: r.get(6)?,
                        import_id: r.get(7)?,
                    })
                })? {
                    edges.push(row?);
                }
                for row in u_stmt.query_map([set], |r| {
                    Ok(StoredUnresolved {
                        file_id: file,
                        ref_id: r.get(0)?,
                        reason: r.get(1)?,
                        candidates: r.get(2)?,
                    })
                })? {
                    unresolved.push(row?);
                }
            }
            Ok((edges, unresolved))
        };
        run().map_err(|e| self.err(e))
    }
}
