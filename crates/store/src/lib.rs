//! The only SQL in Sextant. One SQLite database per repository (WAL, FTS5), holding immutable file
//! versions (nodes, references, imports of one file content) shared by generations, and per
//! generation the file set, the resolved edges and the unresolved references. A generation is
//! built in batches and published by flipping one row, so readers never see half an index and a
//! crash leaves the previous generation intact. The schema is documented in `docs/schema.md`.

mod alloc;
mod bulk;
mod bundle;
mod derived;
mod graph;
mod live;
mod pins;
mod read;
mod rows;
mod schema;
mod search_filters;
mod stat_cache;
mod unjournaled;
mod workspaces;
mod write;

pub use alloc::{StoreAllocator, set_store_allocator};
pub use bundle::{BUNDLE_FORMAT, BundleExpect, BundleInfo, read_bundle_info};
pub use derived::DerivedStore;
pub use graph::{
    GraphEdgeRow, GraphNodeRow, GraphRows, NamedRefSource, UnresolvedBase, UnresolvedName,
    UnresolvedUse,
};
pub use live::{StoredEdge, StoredUnresolved};
pub use pins::{Pin, PinRow};
pub use read::{
    EdgeDump, EdgeHit, FileInfo, GenerationInfo, Histogram, ImportBrief, NodeBrief, NodeRow,
    RefBrief, RefEdge, RefSite, SearchFilters, SkippedRow, StoredVersion,
};
pub use rows::{
    BindingRow, EdgeRow, FileVersionRow, ImportRow, NewNode, RefRow, ResolveImport, ResolveNode,
    ResolveRef, UnresolvedRow,
};
pub use schema::SCHEMA_VERSION;
pub use search_filters::{
    Bounds, CALL_EDGE_KINDS, CallDegrees, Degree, FilterCandidate, GraphFilters, TextMatcher,
};
pub use stat_cache::StatRow;
pub use workspaces::{WORKSPACE_STATUS, WorkspaceFileRow, WorkspaceRow};
pub use write::{
    BASELINE_COMMITS, FileBatch, GenFile, GenerationBuilder, IdRanges, RefRange, Reused,
};

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};

/// A storage failure with what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database {path}: {source}")]
    Sqlite {
        path: String,
        #[source]
        source: rusqlite::Error,
    },
    #[error(
        "database {0} was written by a newer Sextant (schema {1}, this build understands {SCHEMA_VERSION}); upgrade sextant or index into another SEXTANT_HOME"
    )]
    TooNew(String, i64),
    /// A baseline file (shared cache) that cannot be imported; nothing was changed.
    #[error("baseline file {path} refused: {reason}")]
    BadBaseline { path: String, reason: String },
    #[error("{0}")]
    Other(String),
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// How much of the database a connection maps into memory (`PRAGMA mmap_size`): queries read
/// pages in place. A bulk load maps nothing (see `GenerationBuilder::begin_bulk`).
pub(crate) const MMAP_BYTES: i64 = 268_435_456;

/// The page cache of a connection, in KiB (`PRAGMA cache_size` takes it negated).
pub(crate) const CACHE_KIB: i64 = 65_536;

/// The page cache during a bulk load. A load appends rows and then sorts them into indexes;
/// SQLite lets an index build's sorter hold as much as the cache in memory besides the cache
/// itself, so 64 MiB cost up to ~130 MiB at the build, at no gain in speed: with 8 MiB the peak
/// RSS is 55-70 MiB lower on Django and on 73 MB of source, wall time the same
/// (`bench/RESULTS.md`).
pub(crate) const BULK_CACHE_KIB: i64 = 8_192;

/// Sets the memory a connection's pages take: the page cache, the map (none during a bulk
/// load, see `GenerationBuilder::begin_bulk`) and where temporary data goes. A bulk load's index
/// builds sort more than the cache holds: the sorted runs go to a temporary file (deleted when
/// closed) instead of memory, so they do not grow the process with the repository (73 MB of
/// source: 14 MiB less at the peak, the same wall time). Queries keep temporary data in memory.
/// Not in a transaction: SQLite refuses to change `temp_store` there.
pub(crate) fn memory_pragmas(conn: &Connection, bulk: bool) -> rusqlite::Result<()> {
    let (cache, mmap, temp) = if bulk {
        (BULK_CACHE_KIB, 0, "FILE")
    } else {
        (CACHE_KIB, MMAP_BYTES, "MEMORY")
    };
    conn.pragma_update(None, "cache_size", -cache)?;
    conn.pragma_update(None, "mmap_size", mmap)?;
    conn.pragma_update(None, "temp_store", temp)
}

/// An open repository database.
#[derive(Debug)]
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens (creating and migrating if needed) the database at `path` for reading and writing.
    pub fn open(path: &Path) -> Result<Store> {
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| wrap(path, e))?;
        let store = Store {
            conn,
            path: path.to_path_buf(),
        };
        unjournaled::recover(&store.conn, path).map_err(|e| wrap(path, e))?;
        store.configure()?;
        schema::migrate(&store.conn).map_err(|e| match e {
            schema::MigrateError::Sqlite(e) => wrap(path, e),
            schema::MigrateError::TooNew(v) => StoreError::TooNew(path.display().to_string(), v),
        })?;
        schema::create_indexes(&store.conn, false).map_err(|e| wrap(path, e))?;
        // Additive tables (no version bump): readers treat a missing one as empty.
        store
            .conn
            .execute_batch(workspaces::TABLES)
            .map_err(|e| wrap(path, e))?;
        store
            .conn
            .execute_batch(pins::PINS_TABLE)
            .map_err(|e| wrap(path, e))?;
        store
            .conn
            .execute_batch(stat_cache::STAT_CACHE_TABLE)
            .map_err(|e| wrap(path, e))?;
        Ok(store)
    }

    /// Opens an existing database read-only. A database of an older schema is first migrated
    /// (once, by a short read-write open) so readers always see the current tables, and one left
    /// by an interrupted first index is reset to empty the same way.
    pub fn open_read_only(path: &Path) -> Result<Store> {
        // A first index was killed while loading: reset (by a read-write open) before reading.
        if unjournaled::interrupted(path) {
            drop(Store::open(path)?);
        }
        let store = Store::open_read_only_as_is(path)?;
        let version = schema::version(&store.conn).map_err(|e| wrap(path, e))?;
        if version < SCHEMA_VERSION {
            drop(store);
            drop(Store::open(path)?);
            return Store::open_read_only_as_is(path);
        }
        Ok(store)
    }

    fn open_read_only_as_is(path: &Path) -> Result<Store> {
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NO_MUTEX
            | OpenFlags::SQLITE_OPEN_URI;
        let open = |target: &str| -> Result<(Store, i64)> {
            let conn = Connection::open_with_flags(target, flags).map_err(|e| wrap(path, e))?;
            let store = Store {
                conn,
                path: path.to_path_buf(),
            };
            store
                .conn
                .busy_timeout(Duration::from_secs(30))
                .map_err(|e| wrap(path, e))?;
            let version = schema::version(&store.conn).map_err(|e| wrap(path, e))?;
            Ok((store, version))
        };
        let (store, version) = match open(&path.display().to_string()) {
            Ok(opened) => opened,
            // A WAL database in a directory this process cannot write (a read-only mount, a
            // shared cache): SQLite cannot create the `-shm` index it needs to read. Nobody can
            // write there either, so the file is opened as immutable (no locks, no WAL).
            Err(StoreError::Sqlite { source, .. }) if is_read_only_error(&source) => {
                open(&immutable_uri(path))?
            }
            Err(e) => return Err(e),
        };
        if version > SCHEMA_VERSION {
            return Err(StoreError::TooNew(path.display().to_string(), version));
        }
        Ok(store)
    }

    fn configure(&self) -> Result<()> {
        let c = &self.conn;
        let run = || -> rusqlite::Result<()> {
            c.busy_timeout(Duration::from_secs(30))?;
            c.pragma_update(None, "journal_mode", "WAL")?;
            c.pragma_update(None, "synchronous", "NORMAL")?;
            memory_pragmas(c, false)?;
            c.pragma_update(None, "journal_size_limit", 67_108_864)?;
            c.pragma_update(None, "foreign_keys", "OFF")?;
            Ok(())
        };
        run().map_err(|e| wrap(&self.path, e))
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Size in bytes of the database and its WAL.
    pub fn size_bytes(&self) -> u64 {
        let mut total = 0;
        for suffix in ["", "-wal"] {
            let p = PathBuf::from(format!("{}{suffix}", self.path.display()));
            total += std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
        }
        total
    }

    pub(crate) fn err(&self, e: rusqlite::Error) -> StoreError {
        wrap(&self.path, e)
    }

    /// Runs `f` inside one read transaction, so every query sees the same snapshot.
    pub fn snapshot<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&Store) -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E> {
        self.conn
            .execute_batch("BEGIN")
            .map_err(|e| E::from(self.err(e)))?;
        let out = f(self);
        let _ = self.conn.execute_batch("COMMIT");
        out
    }
}

/// Errors of a read that needed to create or write the WAL's shared-memory file.
fn is_read_only_error(e: &rusqlite::Error) -> bool {
    matches!(
        e.sqlite_error_code(),
        Some(rusqlite::ErrorCode::ReadOnly | rusqlite::ErrorCode::CannotOpen)
    )
}

/// `file:` URI opening `path` as immutable (percent-encoding what a URI path cannot hold).
fn immutable_uri(path: &Path) -> String {
    let mut out = String::from("file:");
    for b in path.display().to_string().bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'/' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out.push_str("?immutable=1");
    out
}

fn wrap(path: &Path, source: rusqlite::Error) -> StoreError {
    StoreError::Sqlite {
        path: path.display().to_string(),
        source,
    }
}

impl Store {
    /// The query plan of a name lookup (tests check that indexes exist).
    pub fn explain_name_lookup(&self) -> Result<String> {
        let mut stmt = self
            .conn
            .prepare("EXPLAIN QUERY PLAN SELECT id FROM nodes WHERE name = 'x' COLLATE NOCASE")
            .map_err(|e| self.err(e))?;
        let rows: Vec<String> = stmt
            .query_map([], |r| r.get::<_, String>(3))
            .and_then(|rows| rows.collect())
            .map_err(|e| self.err(e))?;
        Ok(rows.join("\n"))
    }

    /// Sets `PRAGMA user_version` (tests of the "newer schema" refusal).
    #[doc(hidden)]
    /// The connection's page cache and map sizes and where its temporary data goes, as SQLite
    /// reports them (`cache_size`, negative for KiB; `mmap_size` in bytes; `temp_store`, 1 for
    /// files, 2 for memory).
    pub fn memory_settings(&self) -> Result<(i64, i64, i64)> {
        let get = |name: &str| {
            self.conn
                .pragma_query_value(None, name, |r| r.get::<_, i64>(0))
                .map_err(|e| self.err(e))
        };
        Ok((get("cache_size")?, get("mmap_size")?, get("temp_store")?))
    }

    pub fn set_user_version_for_tests(&self, version: i64) -> Result<()> {
        self.conn
            .pragma_update(None, "user_version", version)
            .map_err(|e| self.err(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The immutable fallback reads a database whose path needs percent-encoding.
    #[test]
    fn immutable_uri_opens_the_same_database() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a dir %20 ü").join("index.db");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let store = Store::open(&path).unwrap();
        store.set_user_version_for_tests(SCHEMA_VERSION).unwrap();
        drop(store);
        let uri = immutable_uri(&path);
        assert!(
            uri.starts_with("file:") && uri.ends_with("?immutable=1"),
            "{uri}"
        );
        let conn = Connection::open_with_flags(
            &uri,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI,
        )
        .unwrap();
        assert_eq!(schema::version(&conn).unwrap(), SCHEMA_VERSION);
    }
}
