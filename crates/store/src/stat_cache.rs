//! The stat cache: for each indexed path, the stat of the file when its content was last hashed
//! and that hash, so a run can trust unchanged files without reading them (the engine decides
//! what "unchanged" means: `sextant_vfs::FileStat::still_matches`). The `stat_cache` table is
//! additive (created idempotently on every read-write open, no schema version of its own) and
//! advisory: an empty or missing table only means every file is hashed again.

use rusqlite::params;

use crate::{Result, Store};

/// Created on every read-write open (`CREATE TABLE IF NOT EXISTS`).
pub(crate) const STAT_CACHE_TABLE: &str = "CREATE TABLE IF NOT EXISTS stat_cache (
    path        TEXT PRIMARY KEY,
    size        INTEGER NOT NULL,
    mtime_ns    INTEGER NOT NULL,
    ctime_ns    INTEGER NOT NULL,
    ino         INTEGER NOT NULL,
    dev         INTEGER NOT NULL,
    hash        TEXT NOT NULL,
    verified_ns INTEGER NOT NULL
) WITHOUT ROWID";

/// One path's stat when it was hashed (`ino` and `dev` bit-cast to SQLite's signed integers),
/// the blob id of its content then, and the clock when the run that hashed it started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatRow {
    pub path: String,
    pub size: u64,
    pub mtime_ns: i64,
    pub ctime_ns: i64,
    pub ino: u64,
    pub dev: u64,
    pub hash: String,
    pub verified_ns: i64,
}

impl Store {
    /// Every stat cache row (empty when the table does not exist, e.g. read-only before any
    /// read-write open created it).
    pub fn stat_cache(&self) -> Result<Vec<StatRow>> {
        let mut rows = Vec::new();
        self.each_stat_row(|r| rows.push(r))?;
        Ok(rows)
    }

    /// Hands `each` every stat cache row, one at a time, in no particular order.
    pub fn each_stat_row(&self, mut each: impl FnMut(StatRow)) -> Result<()> {
        let exists =
            crate::pins::table_exists(&self.conn, "stat_cache").map_err(|e| self.err(e))?;
        if !exists {
            return Ok(());
        }
        let mut stmt = self
            .conn
            .prepare(
                "SELECT path, size, mtime_ns, ctime_ns, ino, dev, hash, verified_ns FROM stat_cache",
            )
            .map_err(|e| self.err(e))?;
        let rows = stmt
            .query_map([], |r| {
                Ok(StatRow {
                    path: r.get(0)?,
                    size: r.get::<_, i64>(1)? as u64,
                    mtime_ns: r.get(2)?,
                    ctime_ns: r.get(3)?,
                    ino: r.get::<_, i64>(4)? as u64,
                    dev: r.get::<_, i64>(5)? as u64,
                    hash: r.get(6)?,
                    verified_ns: r.get(7)?,
                })
            })
            .map_err(|e| self.err(e))?;
        for row in rows {
            each(row.map_err(|e| self.err(e))?);
        }
        Ok(())
    }

    /// Records the files hashed by a run (`upsert`) and forgets paths no longer indexed
    /// (`forget`), in one transaction; nothing is written when both are empty.
    pub fn update_stat_cache(
        &mut self,
        upsert: impl IntoIterator<Item = StatRow>,
        forget: &[String],
    ) -> Result<()> {
        let mut upsert = upsert.into_iter().peekable();
        if upsert.peek().is_none() && forget.is_empty() {
            return Ok(());
        }
        self.in_write_tx(|c| {
            let mut put = c.prepare_cached(
                "INSERT OR REPLACE INTO stat_cache
                   (path, size, mtime_ns, ctime_ns, ino, dev, hash, verified_ns)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?;
            for r in upsert {
                put.execute(params![
                    r.path,
                    r.size as i64,
                    r.mtime_ns,
                    r.ctime_ns,
                    r.ino as i64,
                    r.dev as i64,
                    r.hash,
                    r.verified_ns
                ])?;
            }
            let mut del = c.prepare_cached("DELETE FROM stat_cache WHERE path = ?1")?;
            for path in forget {
                del.execute([path])?;
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_round_trip_with_full_width_inodes() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("index.db")).unwrap();
        assert!(store.stat_cache().unwrap().is_empty());
        let row = |path: &str, hash: &str| StatRow {
            path: path.into(),
            size: 12,
            mtime_ns: 1_700_000_000_123_456_789,
            ctime_ns: 1_700_000_000_223_456_789,
            ino: u64::MAX - 3,
            dev: 1 << 63,
            hash: hash.into(),
            verified_ns: 1_700_000_100_000_000_000,
        };
        store
            .update_stat_cache([row("a.py", "h1"), row("b.py", "h2")], &[])
            .unwrap();
        store
            .update_stat_cache([row("a.py", "h3")], &["b.py".to_string()])
            .unwrap();
        assert_eq!(store.stat_cache().unwrap(), vec![row("a.py", "h3")]);
    }
}
