//! Named workspaces (issue 5): an agent's overlay of file texts on a base generation, and the
//! workspace generation built from them. Two additive tables, created idempotently when a store is
//! opened for writing (no schema version bump); readers of a database that lacks them see no
//! workspaces. See `docs/schema.md`.

use rusqlite::{OptionalExtension, params};

use crate::{Result, Store};

/// The tables, created by [`Store::open`] (`CREATE TABLE IF NOT EXISTS`).
pub(crate) const TABLES: &str = r#"
CREATE TABLE IF NOT EXISTS workspaces (
    name            TEXT PRIMARY KEY,
    base_commit     TEXT,
    base_generation INTEGER NOT NULL,
    generation      INTEGER,
    revision        INTEGER NOT NULL,
    created_at      INTEGER NOT NULL,
    refreshed_at    INTEGER
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS workspace_files (
    workspace  TEXT NOT NULL,
    path       TEXT NOT NULL,
    content    TEXT,
    hash       TEXT,
    disk_size  INTEGER,
    disk_mtime INTEGER,
    PRIMARY KEY (workspace, path)
) WITHOUT ROWID;
"#;

/// The status of a generation built for a workspace: published beside the active generation,
/// never active, kept by garbage collection only while a workspace names it.
pub const WORKSPACE_STATUS: &str = "workspace";

/// One workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceRow {
    pub name: String,
    /// The commit of the base generation (`None` outside git).
    pub base_commit: Option<String>,
    /// The generation the overlay applies to.
    pub base_generation: i64,
    /// The generation holding base + overlay (`None` until the first refresh that changed
    /// something: the base answers).
    pub generation: Option<i64>,
    pub revision: i64,
    /// Unix seconds.
    pub created_at: i64,
    pub refreshed_at: Option<i64>,
}

/// One overlay file of a workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceFileRow {
    pub path: String,
    /// The text (`None`: deleted in the workspace).
    pub content: Option<String>,
    /// Git blob id of the text.
    pub hash: Option<String>,
    /// Size and modification time (ns) of the file on disk when the overlay took this text
    /// (`None`: absent from disk): a later difference means the disk moved on since.
    pub disk_size: Option<i64>,
    pub disk_mtime: Option<i64>,
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<WorkspaceRow> {
    Ok(WorkspaceRow {
        name: r.get(0)?,
        base_commit: r.get(1)?,
        base_generation: r.get(2)?,
        generation: r.get(3)?,
        revision: r.get(4)?,
        created_at: r.get(5)?,
        refreshed_at: r.get(6)?,
    })
}

const COLUMNS: &str =
    "name, base_commit, base_generation, generation, revision, created_at, refreshed_at";

impl Store {
    /// The workspace tables exist (a read-only open of a database no writer of this version has
    /// opened has none: no workspaces).
    fn has_workspaces(&self) -> Result<bool> {
        self.conn
            .query_row(
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'workspaces'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n > 0)
            .map_err(|e| self.err(e))
    }

    /// Every workspace, by name.
    pub fn workspaces(&self) -> Result<Vec<WorkspaceRow>> {
        if !self.has_workspaces()? {
            return Ok(Vec::new());
        }
        self.conn
            .prepare(&format!("SELECT {COLUMNS} FROM workspaces ORDER BY name"))
            .and_then(|mut s| s.query_map([], row)?.collect())
            .map_err(|e| self.err(e))
    }

    /// The workspace called `name`.
    pub fn workspace(&self, name: &str) -> Result<Option<WorkspaceRow>> {
        if !self.has_workspaces()? {
            return Ok(None);
        }
        self.conn
            .query_row(
                &format!("SELECT {COLUMNS} FROM workspaces WHERE name = ?1"),
                [name],
                row,
            )
            .optional()
            .map_err(|e| self.err(e))
    }

    /// The overlay files of a workspace, by path.
    pub fn workspace_files(&self, name: &str) -> Result<Vec<WorkspaceFileRow>> {
        if !self.has_workspaces()? {
            return Ok(Vec::new());
        }
        self.conn
            .prepare(
                "SELECT path, content, hash, disk_size, disk_mtime FROM workspace_files
                 WHERE workspace = ?1 ORDER BY path",
            )
            .and_then(|mut s| {
                s.query_map([name], |r| {
                    Ok(WorkspaceFileRow {
                        path: r.get(0)?,
                        content: r.get(1)?,
                        hash: r.get(2)?,
                        disk_size: r.get(3)?,
                        disk_mtime: r.get(4)?,
                    })
                })?
                .collect()
            })
            .map_err(|e| self.err(e))
    }

    /// Number of overlay files of each workspace.
    pub fn workspace_file_counts(&self) -> Result<Vec<(String, u64)>> {
        if !self.has_workspaces()? {
            return Ok(Vec::new());
        }
        self.conn
            .prepare("SELECT workspace, COUNT(*) FROM workspace_files GROUP BY workspace")
            .and_then(|mut s| {
                s.query_map([], |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as u64)))?
                    .collect()
            })
            .map_err(|e| self.err(e))
    }

    /// Creates a workspace on `base_generation` (revision 0, empty overlay). Returns false (and
    /// changes nothing) when it exists.
    pub fn create_workspace(
        &mut self,
        name: &str,
        base_commit: Option<&str>,
        base_generation: i64,
    ) -> Result<bool> {
        self.in_write_tx(|c| {
            let n = c.execute(
                "INSERT OR IGNORE INTO workspaces(name, base_commit, base_generation, generation,
                   revision, created_at) VALUES (?1, ?2, ?3, NULL, 0, ?4)",
                params![name, base_commit, base_generation, now()],
            )?;
            Ok(n > 0)
        })
    }

    /// Records a refresh: the workspace's generation, revision and whole overlay.
    pub fn set_workspace_state(
        &mut self,
        name: &str,
        generation: Option<i64>,
        revision: i64,
        files: &[WorkspaceFileRow],
    ) -> Result<()> {
        self.in_write_tx(|c| {
            c.execute(
                "UPDATE workspaces SET generation = ?2, revision = ?3, refreshed_at = ?4
                 WHERE name = ?1",
                params![name, generation, revision, now()],
            )?;
            c.execute("DELETE FROM workspace_files WHERE workspace = ?1", [name])?;
            let mut stmt = c.prepare_cached(
                "INSERT INTO workspace_files(workspace, path, content, hash, disk_size, disk_mtime)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?;
            for f in files {
                stmt.execute(params![
                    name,
                    f.path,
                    f.content,
                    f.hash,
                    f.disk_size,
                    f.disk_mtime
                ])?;
            }
            Ok(())
        })
    }

    /// Deletes a workspace and its overlay; returns whether it existed. Its generation is
    /// collected by the next garbage collection.
    pub fn delete_workspace(&mut self, name: &str) -> Result<bool> {
        if !self.has_workspaces()? {
            return Ok(false);
        }
        self.in_write_tx(|c| {
            c.execute("DELETE FROM workspace_files WHERE workspace = ?1", [name])?;
            Ok(c.execute("DELETE FROM workspaces WHERE name = ?1", [name])? > 0)
        })
    }
}

/// The generations workspaces hold (their base and their own): garbage collection keeps them.
pub(crate) fn held_generations(c: &rusqlite::Connection) -> rusqlite::Result<Vec<i64>> {
    let exists: i64 = c.query_row(
        "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = 'workspaces'",
        [],
        |r| r.get(0),
    )?;
    if exists == 0 {
        return Ok(Vec::new());
    }
    c.prepare(
        "SELECT base_generation FROM workspaces
         UNION SELECT generation FROM workspaces WHERE generation IS NOT NULL",
    )?
    .query_map([], |r| r.get(0))?
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A database written before the tables existed (or by a build without them) reads as having
    /// no workspaces; the next write open creates them, without changing the schema version.
    #[test]
    fn missing_tables_read_as_empty_and_a_write_open_creates_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("index.db");
        let mut store = Store::open(&path).unwrap();
        store
            .conn
            .execute_batch("DROP TABLE workspaces; DROP TABLE workspace_files;")
            .unwrap();
        assert!(store.workspaces().unwrap().is_empty());
        assert_eq!(store.workspace("w").unwrap(), None);
        assert!(store.workspace_files("w").unwrap().is_empty());
        assert!(!store.delete_workspace("w").unwrap());
        store.collect_garbage(2).unwrap();
        drop(store);
        let reader = Store::open_read_only(&path).unwrap();
        assert!(reader.workspaces().unwrap().is_empty());
        drop(reader);
        let mut store = Store::open(&path).unwrap();
        assert!(store.create_workspace("w", Some("abc"), 7).unwrap());
        assert!(!store.create_workspace("w", Some("def"), 8).unwrap());
        let w = store.workspace("w").unwrap().unwrap();
        assert_eq!(
            (
                w.base_commit.as_deref(),
                w.base_generation,
                w.generation,
                w.revision
            ),
            (Some("abc"), 7, None, 0)
        );
        let version: i64 = store
            .conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, crate::SCHEMA_VERSION);
    }

    /// Garbage collection keeps the generations a workspace names and collects a workspace
    /// generation nothing names any more.
    #[test]
    fn garbage_collection_keeps_held_generations_only() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("index.db")).unwrap();
        let publish = |store: &mut Store, detached: bool| {
            let builder = store
                .begin_generation(Some("c1"), Some("main"), detached)
                .unwrap();
            if detached {
                builder.publish_detached("{}").unwrap()
            } else {
                builder.publish("{}").unwrap()
            }
        };
        let base = publish(&mut store, false);
        let held = publish(&mut store, true);
        let orphan = publish(&mut store, true);
        store.create_workspace("w", Some("c1"), base).unwrap();
        store.set_workspace_state("w", Some(held), 1, &[]).unwrap();
        for _ in 0..3 {
            publish(&mut store, false);
        }
        store.collect_garbage(2).unwrap();
        let ids: Vec<i64> = store.generations().unwrap().iter().map(|g| g.id).collect();
        assert!(ids.contains(&base) && ids.contains(&held), "{ids:?}");
        assert!(!ids.contains(&orphan), "{ids:?}");
        assert_eq!(
            store.generation(held).unwrap().unwrap().status,
            WORKSPACE_STATUS
        );
        store.delete_workspace("w").unwrap();
        store.collect_garbage(2).unwrap();
        let ids: Vec<i64> = store.generations().unwrap().iter().map(|g| g.id).collect();
        assert!(!ids.contains(&held), "{ids:?}");
    }
}
