//! The first index of an empty database loads without a write-ahead log. In WAL mode every page
//! is written twice (to the log, then copied into the database by a checkpoint) and checksummed;
//! for a first load the log protects nothing, since there is no earlier generation to keep
//! readable. The load runs with the rollback journal in memory (`journal_mode = MEMORY`: a
//! failed transaction still rolls back) and without `fsync`; the database is synced once, then
//! returned to WAL, before the generation is published.
//!
//! A process killed during such a load can leave a database whose pages are torn. A marker file
//! next to the database (`index.db-building`), locked by the loading process, says so: opening
//! a database whose marker exists and is not locked, and which has no published generation,
//! resets it to empty (nothing is lost) before anything reads it.

use std::fs::File;
use std::path::{Path, PathBuf};

use rusqlite::Connection;
use rusqlite::config::DbConfig;

fn marker_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push("-building");
    PathBuf::from(name)
}

/// A load without the write-ahead log in progress: holds the marker's lock.
#[derive(Debug)]
pub(crate) struct Unjournaled {
    marker: File,
    marker_path: PathBuf,
}

/// Switches `conn` (the only connection to the database at `db`) to an unjournaled load; `None`
/// when it cannot (another connection has the database open, the marker cannot be written), and
/// then nothing changed.
pub(crate) fn begin(conn: &Connection, db: &Path) -> Option<Unjournaled> {
    let marker_path = marker_path(db);
    let marker = File::create(&marker_path).ok()?;
    if marker.try_lock().is_err() {
        return None;
    }
    let mode: Option<String> = conn
        .query_row("PRAGMA journal_mode = MEMORY", [], |r| r.get(0))
        .ok();
    if mode.as_deref() != Some("memory") {
        // Still WAL: another connection holds the database open.
        restore(conn);
        let _ = std::fs::remove_file(&marker_path);
        return None;
    }
    if conn.pragma_update(None, "synchronous", "OFF").is_err() {
        restore(conn);
        let _ = std::fs::remove_file(&marker_path);
        return None;
    }
    Some(Unjournaled {
        marker,
        marker_path,
    })
}

/// Back to WAL (rollback journal on disk if WAL cannot be entered now; the next open enters it)
/// with `synchronous = NORMAL`.
fn restore(conn: &Connection) {
    let mode: Option<String> = conn
        .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
        .ok();
    if mode.as_deref() != Some("wal") {
        let _ = conn.query_row("PRAGMA journal_mode = DELETE", [], |r| {
            r.get::<_, String>(0)
        });
    }
    let _ = conn.pragma_update(None, "synchronous", "NORMAL");
}

impl Unjournaled {
    /// Ends the load: syncs the database file when `sync` (the load completed and is about to be
    /// published), returns `conn` to WAL and removes the marker. Without `sync` (an abandoned
    /// load, rolled back in this process) the database is consistent as it stands.
    pub(crate) fn end(self, conn: &Connection, db: &Path, sync: bool) -> std::io::Result<()> {
        if sync {
            File::open(db)?.sync_all()?;
        }
        restore(conn);
        // Left behind, the marker would only cost a check: a database with a published
        // generation is never reset.
        if let Err(e) = std::fs::remove_file(&self.marker_path) {
            tracing::warn!("removing {}: {e}", self.marker_path.display());
        }
        drop(self.marker);
        Ok(())
    }
}

/// Before a database is used: if an unjournaled load of it was interrupted (its marker exists and
/// no process holds it), resets the database to empty and removes the marker. Returns whether it
/// did.
pub(crate) fn recover(conn: &Connection, db: &Path) -> rusqlite::Result<bool> {
    let Some(marker) = stale_marker(db) else {
        return Ok(false);
    };
    // A published generation means the load completed (it publishes only after the marker is
    // removed): a marker that outlived it (removing it failed) is no sign of torn pages.
    let published = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'active_generation'",
            [],
            |r| r.get::<_, String>(0),
        )
        .is_ok_and(|v| v != "0");
    if published {
        let _ = std::fs::remove_file(marker_path(db));
        drop(marker);
        return Ok(false);
    }
    // SQLite's documented way to empty a database in place, corrupt or not; other connections
    // see an empty database, not a vanished file.
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_RESET_DATABASE, true)?;
    let vacuumed = conn.execute_batch("VACUUM");
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_RESET_DATABASE, false)?;
    vacuumed?;
    tracing::warn!(
        "{} was left incomplete by an interrupted first index; it was reset to empty",
        db.display()
    );
    let _ = std::fs::remove_file(marker_path(db));
    drop(marker);
    Ok(true)
}

/// The marker of an interrupted load of `db` (it exists and no process holds it), locked.
fn stale_marker(db: &Path) -> Option<File> {
    let marker = File::options().write(true).open(marker_path(db)).ok()?;
    // Locked: a load is running in another process (or this one).
    marker.try_lock().ok()?;
    Some(marker)
}

/// Whether `db` was left by an interrupted load (and must be reset before it is read).
pub(crate) fn interrupted(db: &Path) -> bool {
    stale_marker(db).is_some()
}
