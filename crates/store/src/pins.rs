//! Pinned baselines: generations (or a commit's newest clean generation) that garbage collection
//! keeps whatever its policy says. The `pins` table is additive: created idempotently when a
//! database is opened for writing, without a schema version of its own; a reader of a database
//! without it sees no pins.

use rusqlite::{OptionalExtension, params};

use crate::{Result, Store};

/// Created on every read-write open (`CREATE TABLE IF NOT EXISTS`).
pub(crate) const PINS_TABLE: &str = "CREATE TABLE IF NOT EXISTS pins (
    kind      TEXT NOT NULL,
    value     TEXT NOT NULL,
    pinned_at INTEGER NOT NULL,
    PRIMARY KEY (kind, value)
) WITHOUT ROWID";

/// What a pin keeps.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Pin {
    /// The newest clean published generation of this commit (full id).
    Commit(String),
    /// This generation.
    Generation(i64),
}

impl Pin {
    fn key(&self) -> (&'static str, String) {
        match self {
            Pin::Commit(c) => ("commit", c.clone()),
            Pin::Generation(g) => ("generation", g.to_string()),
        }
    }
}

/// A stored pin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinRow {
    pub pin: Pin,
    /// Unix seconds.
    pub pinned_at: i64,
    /// The generation it keeps now (`None`: a commit with no clean published generation left).
    pub generation: Option<i64>,
}

pub(crate) fn has_pins_table(c: &rusqlite::Connection) -> rusqlite::Result<bool> {
    table_exists(c, "pins")
}

/// Whether an (additive) table exists.
pub(crate) fn table_exists(c: &rusqlite::Connection, name: &str) -> rusqlite::Result<bool> {
    c.query_row(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1",
        [name],
        |_| Ok(()),
    )
    .optional()
    .map(|r| r.is_some())
}

/// The newest clean published generation of a commit.
fn commit_baseline(c: &rusqlite::Connection, commit: &str) -> rusqlite::Result<Option<i64>> {
    c.query_row(
        "SELECT id FROM generations
         WHERE commit_id = ?1 AND dirty = 0 AND status = 'published' ORDER BY id DESC LIMIT 1",
        [commit],
        |r| r.get(0),
    )
    .optional()
}

/// Every pin with the generation it keeps (empty when the table does not exist).
pub(crate) fn read_pins(c: &rusqlite::Connection) -> rusqlite::Result<Vec<PinRow>> {
    if !has_pins_table(c)? {
        return Ok(Vec::new());
    }
    let rows: Vec<(String, String, i64)> = c
        .prepare("SELECT kind, value, pinned_at FROM pins ORDER BY pinned_at, kind, value")?
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut out = Vec::new();
    for (kind, value, pinned_at) in rows {
        let (pin, generation) = if kind == "generation" {
            let Ok(id) = value.parse::<i64>() else {
                continue;
            };
            let exists = c
                .query_row(
                    "SELECT id FROM generations WHERE id = ?1 AND status = 'published'",
                    [id],
                    |r| r.get::<_, i64>(0),
                )
                .optional()?;
            (Pin::Generation(id), exists)
        } else {
            let generation = commit_baseline(c, &value)?;
            (Pin::Commit(value), generation)
        };
        out.push(PinRow {
            pin,
            pinned_at,
            generation,
        });
    }
    Ok(out)
}

impl Store {
    /// Pins a generation or a commit. The target must exist: a published generation, or a commit
    /// with a clean published generation. Returns false when it was already pinned.
    pub fn pin(&mut self, pin: &Pin) -> Result<bool> {
        let c = &self.conn;
        let exists = match pin {
            Pin::Generation(g) => c
                .query_row(
                    "SELECT 1 FROM generations WHERE id = ?1 AND status = 'published'",
                    [g],
                    |_| Ok(()),
                )
                .optional()
                .map(|r| r.is_some()),
            Pin::Commit(commit) => commit_baseline(c, commit).map(|g| g.is_some()),
        }
        .map_err(|e| self.err(e))?;
        if !exists {
            return Err(crate::StoreError::Other(match pin {
                Pin::Generation(g) => format!("no published generation {g} to pin"),
                Pin::Commit(commit) => format!(
                    "no clean generation of commit {commit} is kept to pin; index it (or pull it) first"
                ),
            }));
        }
        let (kind, value) = pin.key();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        self.conn
            .execute_batch(PINS_TABLE)
            .and_then(|()| {
                self.conn.execute(
                    "INSERT OR IGNORE INTO pins(kind, value, pinned_at) VALUES (?1, ?2, ?3)",
                    params![kind, value, now],
                )
            })
            .map(|n| n > 0)
            .map_err(|e| self.err(e))
    }

    /// Removes a pin. Returns false when it was not pinned.
    pub fn unpin(&mut self, pin: &Pin) -> Result<bool> {
        let (kind, value) = pin.key();
        let run = || -> rusqlite::Result<bool> {
            if !has_pins_table(&self.conn)? {
                return Ok(false);
            }
            Ok(self.conn.execute(
                "DELETE FROM pins WHERE kind = ?1 AND value = ?2",
                params![kind, value],
            )? > 0)
        };
        run().map_err(|e| self.err(e))
    }

    /// Every pin, oldest first, with the generation each keeps now.
    pub fn pins(&self) -> Result<Vec<PinRow>> {
        read_pins(&self.conn).map_err(|e| self.err(e))
    }
}
