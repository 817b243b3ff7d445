//! `derived.db`: results computed from a generation (PageRank scores, betweenness, community
//! membership, ...) kept so they are not recomputed on every call and survive restarts. A small
//! database of its own beside `index.db`, so writing it never waits for (or blocks) an indexer's
//! write transaction. Values are opaque bytes; the engine decides their encoding. Everything
//! here is a cache: losing the file loses nothing but time.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, params};

use crate::{Result, StoreError};

/// The derived-results database of one repository.
#[derive(Debug)]
pub struct DerivedStore {
    conn: Connection,
    path: PathBuf,
}

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS derived (
    generation INTEGER NOT NULL,
    name       TEXT NOT NULL,
    params     TEXT NOT NULL,
    value      BLOB NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (generation, name, params)
) WITHOUT ROWID;
";

impl DerivedStore {
    /// Opens (creating if needed) the database at `path`.
    pub fn open(path: &Path) -> Result<DerivedStore> {
        let wrap = |e: rusqlite::Error| StoreError::Sqlite {
            path: path.display().to_string(),
            source: e,
        };
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(wrap)?;
        conn.busy_timeout(Duration::from_secs(5)).map_err(wrap)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(wrap)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(wrap)?;
        conn.execute_batch(SCHEMA).map_err(wrap)?;
        Ok(DerivedStore {
            conn,
            path: path.to_path_buf(),
        })
    }

    fn err(&self, e: rusqlite::Error) -> StoreError {
        StoreError::Sqlite {
            path: self.path.display().to_string(),
            source: e,
        }
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The stored value of `name` with `params` for `generation`.
    pub fn get(&self, generation: i64, name: &str, params: &str) -> Result<Option<Vec<u8>>> {
        self.conn
            .prepare_cached(
                "SELECT value FROM derived WHERE generation = ?1 AND name = ?2 AND params = ?3",
            )
            .and_then(|mut s| {
                s.query_row(params![generation, name, params], |r| r.get(0))
                    .optional()
            })
            .map_err(|e| self.err(e))
    }

    /// Stores (or replaces) a value, and deletes the values of generations older than every
    /// generation in `live` (and than `generation`): those can no longer be asked for.
    pub fn put(
        &self,
        generation: i64,
        name: &str,
        params: &str,
        value: &[u8],
        live: &[i64],
    ) -> Result<()> {
        let oldest_live = live.iter().copied().chain([generation]).min().unwrap_or(0);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        let run = || -> rusqlite::Result<()> {
            self.conn.execute_batch("BEGIN IMMEDIATE")?;
            self.conn.execute(
                "DELETE FROM derived WHERE generation < ?1",
                params![oldest_live],
            )?;
            self.conn.execute(
                "INSERT OR REPLACE INTO derived(generation, name, params, value, created_at)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![generation, name, params, value, now],
            )?;
            self.conn.execute_batch("COMMIT")
        };
        run().map_err(|e| {
            let _ = self.conn.execute_batch("ROLLBACK");
            self.err(e)
        })
    }

    /// Every stored (generation, name, params, bytes), for tests and `status`-like listings.
    pub fn entries(&self) -> Result<Vec<(i64, String, String, u64)>> {
        self.conn
            .prepare(
                "SELECT generation, name, params, length(value) FROM derived
                 ORDER BY generation, name, params",
            )
            .and_then(|mut s| {
                s.query_map([], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get::<_, i64>(3)? as u64))
                })?
                .collect()
            })
            .map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_get_replace_and_prune() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("derived.db");
        let d = DerivedStore::open(&path).unwrap();
        assert_eq!(d.get(1, "pagerank", "v1").unwrap(), None);
        d.put(1, "pagerank", "v1", b"abc", &[1]).unwrap();
        assert_eq!(
            d.get(1, "pagerank", "v1").unwrap().as_deref(),
            Some(&b"abc"[..])
        );
        d.put(1, "pagerank", "v1", b"xyz", &[1]).unwrap();
        assert_eq!(
            d.get(1, "pagerank", "v1").unwrap().as_deref(),
            Some(&b"xyz"[..])
        );
        assert_eq!(d.get(1, "pagerank", "v2").unwrap(), None);
        d.put(2, "pagerank", "v1", b"two", &[1, 2]).unwrap();
        assert_eq!(d.entries().unwrap().len(), 2);
        // Generation 1 is no longer live: pruned on the next put.
        d.put(3, "communities", "", b"c", &[2, 3]).unwrap();
        let gens: Vec<i64> = d.entries().unwrap().iter().map(|e| e.0).collect();
        assert_eq!(gens, vec![2, 3]);
        drop(d);
        // Survives reopening.
        let d = DerivedStore::open(&path).unwrap();
        assert_eq!(
            d.get(2, "pagerank", "v1").unwrap().as_deref(),
            Some(&b"two"[..])
        );
    }
}
