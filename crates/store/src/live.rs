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
        self.conn
            .prepare(
                "SELECT file_id, edge_set, set_hash FROM gen_files WHERE generation = ?1
                 ORDER BY file_id",
            )
            .and_then(|mut s| {
                s.query_map([generation], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                    .collect()
            })
            .map_err(|e| self.err(e))
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
