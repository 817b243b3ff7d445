//! Building a generation: batches of immediate transactions, then a one-row flip to publish.
//! The caller must hold the repository's index lock (one writer per database).

use rusqlite::params;
use sextant_model::{NodeKind, RefKind};

use crate::rows::{
    BindingRow, EdgeRow, FileVersionRow, ImportRow, NewNode, RefRow, ResolveImport, ResolveNode,
    ResolveRef, UnresolvedRow,
};
use crate::{Result, Store};

/// How many commits keep a baseline (their newest clean published generation) through garbage
/// collection.
pub const BASELINE_COMMITS: usize = 5;

/// One file version with its nodes, references and imports.
/// What the resolver needs of the file versions a generation reuses.
#[derive(Debug, Default)]
pub struct Reused {
    pub nodes: Vec<ResolveNode>,
    /// All the references, or only the inheritance clauses (see
    /// [`GenerationBuilder::for_each_reused`]).
    pub refs: Vec<ResolveRef>,
    pub imports: Vec<ResolveImport>,
    pub bindings: Vec<BindingRow>,
    /// Where each file's references are, when they were left in the store.
    pub ref_ranges: Vec<RefRange>,
}

/// Where one file version's references are in the `refs` table: ids `first..=last`, `count` of
/// them (each file's references get consecutive ids when it is written).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefRange {
    pub file_id: i64,
    pub first: i64,
    pub last: i64,
    pub count: u64,
}

pub type FileBatch = (
    FileVersionRow,
    Vec<NewNode>,
    Vec<RefRow>,
    Vec<ImportRow>,
    Vec<BindingRow>,
);

/// A file version joining a generation: with the edge set it shares (`set`, and that set's
/// content fingerprint `hash`) or none (a new, empty set is allocated).
#[derive(Debug, Clone, Copy)]
pub struct GenFile {
    pub file: i64,
    pub uncommitted: bool,
    pub set: Option<i64>,
    pub hash: Option<i64>,
}

/// The next free ids, allocated by the (single) writer without round trips.
#[derive(Debug, Clone, Copy, Default)]
pub struct IdRanges {
    pub file: i64,
    pub node: i64,
    pub reference: i64,
    pub import: i64,
}

/// A generation being built.
#[derive(Debug)]
pub struct GenerationBuilder<'s> {
    store: &'s mut Store,
    /// Secondary indexes were dropped for a bulk load and must be rebuilt before publishing.
    bulk: bool,
    pub generation: i64,
    /// Ids at the start: file versions below `first.file` existed before this generation.
    pub first: IdRanges,
    /// The next free edge-set id.
    next_set: i64,
    /// The edge set of each file version of this generation.
    sets: FileSets,
    /// Refresh the planner statistics when publishing (a generation that changes a few files
    /// leaves them valid; skipping saves its cost).
    pub analyze: bool,
    /// A checkpoint of the bulk load's WAL running on its own connection (see
    /// [`GenerationBuilder::checkpoint_behind`]).
    checkpointer: Option<std::thread::JoinHandle<()>>,
    /// The bulk load of an empty database runs without the write-ahead log (see
    /// `unjournaled.rs`).
    unjournaled: Option<crate::unjournaled::Unjournaled>,
    /// The bulk inserts' statements (finalized with the builder, before the store's connection
    /// can close).
    statements: crate::bulk::Statements,
    /// The transaction [`GenerationBuilder::append_files`] opened, with the full-text rows of the
    /// files added in it: they are written when it commits.
    open: Option<FtsRows>,
}

/// The edge set of each file version of a generation: the versions it adds (ids from its first,
/// all of a first index's) by offset, a word each, the others in a map. As a map of every file
/// they were ~30 bytes a file through resolution (0.53 MiB on 17,863 files).
#[derive(Debug)]
struct FileSets {
    first: i64,
    /// By `file - first`: the set, or [`FileSets::NONE`].
    new: Vec<i64>,
    old: std::collections::HashMap<i64, i64>,
}

impl FileSets {
    const NONE: i64 = i64::MIN;
    /// New versions this far past the first are kept in the map (none are expected: their ids
    /// are consecutive).
    const MAX_OFFSET: i64 = 1 << 26;

    fn new(first: i64) -> FileSets {
        FileSets {
            first,
            new: Vec::new(),
            old: std::collections::HashMap::new(),
        }
    }

    fn offset(&self, file: i64) -> Option<usize> {
        let offset = file.checked_sub(self.first)?;
        (0..Self::MAX_OFFSET)
            .contains(&offset)
            .then_some(offset as usize)
    }

    fn get(&self, file: i64) -> Option<i64> {
        match self.offset(file) {
            Some(at) => match self.new.get(at) {
                Some(&set) if set != Self::NONE => Some(set),
                _ => self.old.get(&file).copied(),
            },
            None => self.old.get(&file).copied(),
        }
    }

    fn insert(&mut self, file: i64, set: i64) {
        match self.offset(file) {
            Some(at) if set != Self::NONE => {
                if at >= self.new.len() {
                    self.new.resize(at + 1, Self::NONE);
                }
                self.new[at] = set;
            }
            _ => {
                self.old.insert(file, set);
            }
        }
    }
}

/// Nodes' full-text rows (name tokens, qualified-name tokens, signature, doc), packed: their
/// text in one string. A commit's rows of generated code as four `String`s a node held 5-7 MiB
/// (a quarter of the read phase's heap at its peak on 162 MB of source).
#[derive(Debug, Default)]
struct FtsRows {
    ids: Vec<i64>,
    /// Per row, where each of its four columns ends in `text`.
    ends: Vec<[usize; 4]>,
    /// Per row, whether it has a doc (else its doc is empty and means none).
    docs: Vec<bool>,
    text: String,
}

impl FtsRows {
    fn push(&mut self, id: i64, columns: [&str; 3], doc: Option<&str>) {
        let mut ends = [0; 4];
        for (end, column) in ends
            .iter_mut()
            .zip(columns.into_iter().chain([doc.unwrap_or("")]))
        {
            self.text.push_str(column);
            *end = self.text.len();
        }
        self.ids.push(id);
        self.ends.push(ends);
        self.docs.push(doc.is_some());
    }

    fn len(&self) -> usize {
        self.ids.len()
    }

    /// About the heap bytes held.
    fn heap_bytes(&self) -> usize {
        self.ids.capacity() * 8
            + self.ends.capacity() * 32
            + self.docs.capacity()
            + self.text.capacity()
    }

    fn rows(&self) -> impl Iterator<Item = (i64, &str, &str, &str, Option<&str>)> {
        let mut start = 0;
        self.ids
            .iter()
            .zip(&self.ends)
            .zip(&self.docs)
            .map(move |((&id, ends), &doc)| {
                let [a, b, c, d] = ends.map(|end| {
                    let column = &self.text[start..end];
                    start = end;
                    column
                });
                (id, a, b, c, doc.then_some(d))
            })
    }
}

/// The first 600 bytes of a doc comment are searched.
const FTS_DOC_BYTES: usize = 600;

fn fts_doc(doc: &str) -> &str {
    let mut end = doc.len().min(FTS_DOC_BYTES);
    while !doc.is_char_boundary(end) {
        end -= 1;
    }
    &doc[..end]
}

impl Drop for GenerationBuilder<'_> {
    /// An abandoned bulk load (an error, a cancel) was rolled back: the connection returns to
    /// WAL and the marker goes, the database being consistent.
    fn drop(&mut self) {
        if self.open.take().is_some() {
            let _ = self.store.conn.execute_batch("ROLLBACK");
        }
        if let Some(unjournaled) = self.unjournaled.take() {
            let _ = unjournaled.end(&self.store.conn, &self.store.path, false);
        }
        if self.bulk {
            let _ = crate::memory_pragmas(&self.store.conn, false);
        }
    }
}

fn now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0)
}

impl Store {
    pub(crate) fn in_write_tx<T>(
        &self,
        f: impl FnOnce(&rusqlite::Connection) -> rusqlite::Result<T>,
    ) -> Result<T> {
        let c = &self.conn;
        c.execute_batch("BEGIN IMMEDIATE")
            .map_err(|e| self.err(e))?;
        match f(c) {
            Ok(v) => {
                c.execute_batch("COMMIT").map_err(|e| self.err(e))?;
                Ok(v)
            }
            Err(e) => {
                let _ = c.execute_batch("ROLLBACK");
                Err(self.err(e))
            }
        }
    }

    /// Removes generations that were never published (a crashed or killed indexer) and published
    /// ones beyond the newest `keep` that are neither a commit baseline nor pinned, then file
    /// versions no generation uses. Call with the index lock.
    pub fn collect_garbage(&mut self, keep: usize) -> Result<()> {
        let active = self.active_generation_id()?;
        self.in_write_tx(|c| {
            // Generations a workspace holds (its base and its own) stay while it exists; a
            // workspace generation no workspace holds any more is collected like a killed run.
            let held = crate::workspaces::held_generations(c)?;
            let mut stale: Vec<i64> = c
                .prepare("SELECT id FROM generations WHERE status != 'published' AND id != ?1")?
                .query_map([active], |r| r.get(0))?
                .collect::<rusqlite::Result<Vec<i64>>>()?
                .into_iter()
                .filter(|id| !held.contains(id))
                .collect();
            let published: Vec<(i64, Option<String>, bool)> = c
                .prepare(
                    "SELECT id, commit_id, dirty FROM generations
                     WHERE status = 'published' AND id != ?1 ORDER BY id DESC",
                )?
                .query_map([active], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect::<rusqlite::Result<_>>()?;
            // Baselines: the newest clean generation of each of the last BASELINE_COMMITS
            // commits stays, so checking one out again costs no re-index.
            let active_commit: Option<String> = c
                .query_row(
                    "SELECT commit_id FROM generations WHERE id = ?1 AND dirty = 0",
                    [active],
                    |r| r.get(0),
                )
                .unwrap_or(None);
            let mut commits: Vec<String> = active_commit.into_iter().collect();
            // Pinned generations (and the baselines of pinned commits) stay whatever the policy.
            let pinned: Vec<i64> = crate::pins::read_pins(c)?
                .into_iter()
                .filter_map(|p| p.generation)
                .collect();
            for (i, (id, commit, dirty)) in published.into_iter().enumerate() {
                if i + 1 < keep || pinned.contains(&id) {
                    continue;
                }
                if held.contains(&id) {
                    continue;
                }
                if let Some(commit) = commit.filter(|_| !dirty)
                    && commits.len() < BASELINE_COMMITS
                    && !commits.contains(&commit)
                {
                    commits.push(commit);
                    continue;
                }
                stale.push(id);
            }
            // Nothing to collect: the sweeps below would find nothing either (file versions and
            // edge sets lose their last generation only when one is collected here), and they
            // scan whole tables.
            if stale.is_empty() {
                return Ok(());
            }
            // Edge sets of the collected generations that no remaining generation shares.
            c.execute_batch(
                "CREATE TEMP TABLE IF NOT EXISTS dead_sets(id INTEGER PRIMARY KEY);
                 DELETE FROM dead_sets;",
            )?;
            for generation in &stale {
                c.execute(
                    "INSERT OR IGNORE INTO dead_sets SELECT edge_set FROM gen_files WHERE generation = ?1",
                    [generation],
                )?;
                for table in ["gen_files", "skipped"] {
                    c.execute(&format!("DELETE FROM {table} WHERE generation = ?1"), [generation])?;
                }
                c.execute("DELETE FROM generations WHERE id = ?1", [generation])?;
            }
            c.execute_batch(
                "DELETE FROM dead_sets WHERE id IN (SELECT edge_set FROM gen_files);
                 DELETE FROM edges WHERE set_id IN (SELECT id FROM dead_sets);
                 DELETE FROM unresolved WHERE set_id IN (SELECT id FROM dead_sets);
                 DELETE FROM dead_sets;",
            )?;
            c.execute_batch(
                "CREATE TEMP TABLE IF NOT EXISTS dead_files(id INTEGER PRIMARY KEY);
                 DELETE FROM dead_files;
                 INSERT INTO dead_files SELECT id FROM file_versions
                   WHERE id NOT IN (SELECT file_id FROM gen_files);
                 DELETE FROM nodes_fts WHERE rowid IN
                   (SELECT id FROM nodes WHERE file_id IN (SELECT id FROM dead_files));
                 DELETE FROM nodes WHERE file_id IN (SELECT id FROM dead_files);
                 DELETE FROM refs WHERE file_id IN (SELECT id FROM dead_files);
                 DELETE FROM imports WHERE file_id IN (SELECT id FROM dead_files);
                 DELETE FROM bindings WHERE file_id IN (SELECT id FROM dead_files);
                 DELETE FROM file_versions WHERE id IN (SELECT id FROM dead_files);
                 DELETE FROM dead_files;",
            )?;
            Ok(())
        })
    }

    /// Starts a new generation (status `building`).
    pub fn begin_generation(
        &mut self,
        commit: Option<&str>,
        branch: Option<&str>,
        dirty: bool,
    ) -> Result<GenerationBuilder<'_>> {
        let (generation, first, next_set) = self.in_write_tx(|c| {
            c.execute(
                "INSERT INTO generations(commit_id, branch, dirty, status, started_at)
                 VALUES (?1, ?2, ?3, 'building', ?4)",
                params![commit, branch, dirty, now()],
            )?;
            let generation = c.last_insert_rowid();
            let next = |table: &str| -> rusqlite::Result<i64> {
                c.query_row(
                    &format!("SELECT COALESCE(MAX(id), 0) + 1 FROM {table}"),
                    [],
                    |r| r.get(0),
                )
            };
            let first = IdRanges {
                file: next("file_versions")?,
                node: next("nodes")?,
                reference: next("refs")?,
                import: next("imports")?,
            };
            let next_set: i64 = c.query_row(
                "SELECT COALESCE(MAX(edge_set), 0) + 1 FROM gen_files",
                [],
                |r| r.get(0),
            )?;
            Ok((generation, first, next_set))
        })?;
        Ok(GenerationBuilder {
            store: self,
            bulk: false,
            generation,
            first,
            next_set,
            sets: FileSets::new(first.file),
            analyze: true,
            checkpointer: None,
            unjournaled: None,
            statements: crate::bulk::Statements::default(),
            open: None,
        })
    }
}

impl GenerationBuilder<'_> {
    /// The store being written.
    pub fn store(&self) -> &Store {
        self.store
    }

    fn set_for(&mut self, file: i64) -> i64 {
        let next = &mut self.next_set;
        match self.sets.get(file) {
            Some(set) => set,
            None => {
                let set = *next;
                *next += 1;
                self.sets.insert(file, set);
                set
            }
        }
    }

    /// Adds file versions that already exist to this generation; their edges are resolved
    /// again (each gets a new, empty edge set).
    pub fn reuse_files(&mut self, files: &[(i64, bool)]) -> Result<()> {
        let rows: Vec<GenFile> = files
            .iter()
            .map(|&(file, uncommitted)| GenFile {
                file,
                uncommitted,
                set: None,
                hash: None,
            })
            .collect();
        self.add_files(&rows)
    }

    /// Adds every file version of the generation `previous` except the files `except`, each with
    /// its edge set and fingerprint, in one statement (a live update keeps almost all of them);
    /// `shared` names those files' sets for [`GenerationBuilder::edge_set`].
    pub fn copy_files_from(
        &mut self,
        previous: i64,
        except: &[i64],
        shared: &[(i64, i64)],
    ) -> Result<()> {
        for &(file, set) in shared {
            self.sets.insert(file, set);
        }
        let generation = self.generation;
        self.store.in_write_tx(|c| {
            c.execute(
                "INSERT OR IGNORE INTO gen_files(generation, file_id, uncommitted, edge_set, set_hash)
                 SELECT ?1, file_id, uncommitted, edge_set, set_hash FROM gen_files
                 WHERE generation = ?2",
                params![generation, previous],
            )?;
            let mut stmt =
                c.prepare_cached("DELETE FROM gen_files WHERE generation = ?1 AND file_id = ?2")?;
            for file in except {
                stmt.execute(params![generation, file])?;
            }
            Ok(())
        })
    }

    /// Adds file versions that already exist to this generation, each with the edge set it keeps
    /// (`set: Some`: shared with an earlier generation, written no more) or a new one (`None`).
    pub fn add_files(&mut self, files: &[GenFile]) -> Result<()> {
        let generation = self.generation;
        let rows: Vec<(i64, bool, i64, Option<i64>)> = files
            .iter()
            .map(|f| {
                let set = match f.set {
                    Some(set) => {
                        self.sets.insert(f.file, set);
                        set
                    }
                    None => self.set_for(f.file),
                };
                (f.file, f.uncommitted, set, f.set.and(f.hash))
            })
            .collect();
        self.store.in_write_tx(|c| {
            let mut stmt = c.prepare_cached(
                "INSERT OR IGNORE INTO gen_files(generation, file_id, uncommitted, edge_set, set_hash)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            )?;
            for (file, uncommitted, set, hash) in rows {
                stmt.execute(params![generation, file, uncommitted, set, hash])?;
            }
            Ok(())
        })
    }

    /// Sets the edge set of file versions of this generation, with its content fingerprint:
    /// `(file, set, hash)`. Used to share a set of an earlier generation whose edges came out
    /// identical (nothing is written for it), and to record the fingerprint of a new set.
    pub fn record_sets(&mut self, sets: &[(i64, i64, Option<i64>)]) -> Result<()> {
        for &(file, set, _) in sets {
            self.sets.insert(file, set);
        }
        let generation = self.generation;
        self.store.in_write_tx(|c| {
            let mut stmt = c.prepare_cached(
                "UPDATE gen_files SET edge_set = ?3, set_hash = ?4
                 WHERE generation = ?1 AND file_id = ?2",
            )?;
            for (file, set, hash) in sets {
                stmt.execute(params![generation, file, set, hash])?;
            }
            Ok(())
        })
    }

    /// The edge set of a file version of this generation.
    pub fn edge_set(&self, file: i64) -> Option<i64> {
        self.sets.get(file)
    }

    /// Writes new file versions with their nodes, references and imports, in one transaction.
    pub fn write_files(&mut self, batch: &[FileBatch]) -> Result<()> {
        let sets: Vec<i64> = batch.iter().map(|b| self.set_for(b.0.id)).collect();
        let (generation, statements) = (self.generation, &self.statements);
        self.store.in_write_tx(|c| {
            insert_files(statements, c, generation, batch, &sets)?;
            // Last: a statement that opens a savepoint (each multi-row insert above) makes every
            // virtual table already in the transaction write out its pending terms as a new
            // FTS5 segment.
            insert_fts(
                statements,
                c,
                batch.iter().flat_map(|b| &b.1).map(|n| {
                    (
                        n.id,
                        n.name_tokens.as_str(),
                        n.qname_tokens.as_str(),
                        n.signature.as_str(),
                        n.doc.as_deref().map(fts_doc),
                    )
                }),
            )
        })
    }

    /// Writes new file versions as [`GenerationBuilder::write_files`] does, in a transaction
    /// that stays open for the next batches until [`GenerationBuilder::commit_files`]: a
    /// writer holds a few files' rows at a time, and commits as rarely as before. The nodes'
    /// full-text columns (`name_tokens`, `qname_tokens`, `signature`, `doc`) are taken from
    /// `batch`: the commit writes them (full-text rows written before the other tables' rows of
    /// a later batch would each make an FTS5 segment). No other write may come in between; a
    /// failed batch rolls the whole transaction back.
    pub fn append_files(&mut self, batch: &mut [FileBatch]) -> Result<()> {
        let sets: Vec<i64> = batch.iter().map(|b| self.set_for(b.0.id)).collect();
        if self.open.is_none() {
            self.store
                .conn
                .execute_batch("BEGIN IMMEDIATE")
                .map_err(|e| self.store.err(e))?;
            self.open = Some(FtsRows::default());
        }
        let written = insert_files(
            &self.statements,
            &self.store.conn,
            self.generation,
            batch,
            &sets,
        );
        if let Err(e) = written {
            self.open = None;
            let _ = self.store.conn.execute_batch("ROLLBACK");
            return Err(self.store.err(e));
        }
        let fts = self.open.get_or_insert_with(FtsRows::default);
        for node in batch.iter_mut().flat_map(|b| &mut b.1) {
            let columns = [&node.name_tokens, &node.qname_tokens, &node.signature];
            fts.push(
                node.id,
                columns.map(String::as_str),
                node.doc.as_deref().map(fts_doc),
            );
            for column in [
                &mut node.name_tokens,
                &mut node.qname_tokens,
                &mut node.signature,
            ] {
                *column = String::new();
            }
            node.doc = None;
        }
        Ok(())
    }

    /// About the heap bytes of the full-text rows pending until [`GenerationBuilder::commit_files`].
    pub fn pending_bytes(&self) -> usize {
        self.open.as_ref().map_or(0, FtsRows::heap_bytes)
    }

    /// Writes the full-text rows of the files added since the last commit and commits them
    /// (nothing when no [`GenerationBuilder::append_files`] is pending).
    pub fn commit_files(&mut self) -> Result<()> {
        let Some(rows) = self.open.take() else {
            return Ok(());
        };
        let c = &self.store.conn;
        tracing::debug!(
            rows = rows.len(),
            bytes = rows.heap_bytes(),
            "full-text rows committed"
        );
        let done =
            insert_fts(&self.statements, c, rows.rows()).and_then(|()| c.execute_batch("COMMIT"));
        if let Err(e) = done {
            let _ = c.execute_batch("ROLLBACK");
            return Err(self.store.err(e));
        }
        Ok(())
    }

    /// Records skipped files of this generation.
    pub fn write_skipped(&mut self, skipped: &[(String, &'static str, u64)]) -> Result<()> {
        let generation = self.generation;
        self.store.in_write_tx(|c| {
            let mut stmt = c.prepare_cached(
                "INSERT INTO skipped(generation, path, reason, size) VALUES (?1, ?2, ?3, ?4)",
            )?;
            for (path, reason, size) in skipped {
                stmt.execute(params![generation, path, reason, *size as i64])?;
            }
            Ok(())
        })
    }

    /// Writes resolved edges and unresolved references into the edge sets of their files (which
    /// must be files of this generation with a new set).
    pub fn write_resolution(
        &mut self,
        edges: &[EdgeRow],
        unresolved: &[UnresolvedRow],
    ) -> Result<()> {
        let set_of = |file: i64| {
            self.sets.get(file).ok_or_else(|| {
                crate::StoreError::Other(format!(
                    "edge of file version {file}, which is not in generation {}",
                    self.generation
                ))
            })
        };
        let edge_sets = edges
            .iter()
            .map(|e| set_of(e.file_id))
            .collect::<Result<Vec<i64>>>()?;
        let unresolved_sets = unresolved
            .iter()
            .map(|u| set_of(u.file_id))
            .collect::<Result<Vec<i64>>>()?;
        self.store.in_write_tx(|c| {
            crate::bulk::insert_rows(
                &self.statements,
                c,
                "INSERT INTO edges(set_id, src, dst, kind, provenance, confidence, rule, ref_id,
                   import_id)",
                9,
                ROWS_PER_INSERT,
                edges.iter().zip(edge_sets),
                |b, (e, set)| {
                    b.set(1, set)?;
                    b.set(2, e.src)?;
                    b.set(3, e.dst)?;
                    b.set(4, e.kind.as_str())?;
                    b.set(5, e.provenance.as_str())?;
                    b.set(6, e.confidence.as_str())?;
                    b.set(7, e.rule)?;
                    b.set(8, e.ref_id)?;
                    b.set(9, e.import_id)
                },
            )?;
            crate::bulk::insert_rows(
                &self.statements,
                c,
                "INSERT OR REPLACE INTO unresolved(set_id, ref_id, reason, candidates)",
                4,
                ROWS_PER_INSERT,
                unresolved.iter().zip(unresolved_sets),
                |b, (u, set)| {
                    b.set(1, set)?;
                    b.set(2, u.ref_id)?;
                    b.set(3, u.reason)?;
                    b.set(4, u.candidates)
                },
            )?;
            Ok(())
        })
    }

    /// Loads what the resolver needs of the file versions this generation reuses, `files` of
    /// them at a time (in id order), and hands each part to `each`: a run that reuses most of a
    /// large repository never holds all of their definitions, bindings and imports at once
    /// (loaded whole, 330 MiB of the heap on 162 MB of source). With `all_refs` false, only
    /// their inheritance clauses are loaded and the others stay in the store, where
    /// [`GenerationBuilder::read_refs`] finds them by their `ref_ranges`.
    pub fn for_each_reused<E: From<crate::StoreError>>(
        &self,
        all_refs: bool,
        files: usize,
        mut each: impl FnMut(Reused) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let mut after = i64::MIN;
        loop {
            let ids: Vec<i64> = self
                .store
                .conn
                .prepare_cached(
                    "SELECT file_id FROM gen_files
                     WHERE generation = ?1 AND file_id > ?2 AND file_id < ?3
                     ORDER BY file_id LIMIT ?4",
                )
                .and_then(|mut stmt| {
                    stmt.query_map(
                        params![self.generation, after, self.first.file, files.max(1) as i64],
                        |r| r.get(0),
                    )?
                    .collect()
                })
                .map_err(|e| self.store.err(e))?;
            let (Some(&first), Some(&last)) = (ids.first(), ids.last()) else {
                return Ok(());
            };
            each(
                self.store
                    .load_facts(self.generation, first, last, all_refs)?,
            )?;
            after = last;
        }
    }

    /// Reads the references of the given ranges, in order (the range's file's only).
    pub fn read_refs(&self, ranges: &[RefRange]) -> Result<Vec<ResolveRef>> {
        let c = &self.store.conn;
        let run = || -> rusqlite::Result<Vec<ResolveRef>> {
            let mut stmt = c.prepare_cached(
                "SELECT id, file_id, src_id, kind, name, receiver, implementor
                 FROM refs WHERE id BETWEEN ?1 AND ?2 AND file_id = ?3 ORDER BY id",
            )?;
            let mut out = Vec::with_capacity(ranges.iter().map(|r| r.count as usize).sum());
            for range in ranges {
                let rows =
                    stmt.query_map(params![range.first, range.last, range.file_id], |r| {
                        let kind: String = r.get(3)?;
                        Ok(ResolveRef {
                            id: r.get(0)?,
                            file_id: r.get(1)?,
                            src_id: r.get(2)?,
                            kind: RefKind::parse(&kind).unwrap_or(RefKind::Read),
                            name: r.get(4)?,
                            receiver: r.get(5)?,
                            implementor: r.get(6)?,
                        })
                    })?;
                for row in rows {
                    out.push(row?);
                }
            }
            Ok(out)
        };
        run().map_err(|e| self.store.err(e))
    }
}

impl Store {
    /// What the resolver needs of every file version of a generation (the live index loads a
    /// published generation with it).
    pub fn generation_facts(&self, generation: i64) -> Result<Reused> {
        self.load_facts(generation, i64::MIN, i64::MAX, true)
    }

    /// What the resolver needs of the file versions of `generation` with an id from `first` to
    /// `last`: with `all_refs` false, of the references only the inheritance clauses, and where
    /// each file's references are.
    fn load_facts(&self, generation: i64, first: i64, last: i64, all_refs: bool) -> Result<Reused> {
        let c = &self.conn;
        let run = || -> rusqlite::Result<_> {
            let nodes = c
                .prepare_cached(
                    "SELECT n.id, n.file_id, n.kind, n.name, n.qname, n.parent_id, n.modifiers,
                            n.type_text
                     FROM gen_files g JOIN nodes n ON n.file_id = g.file_id
                     WHERE g.generation = ?1 AND g.file_id BETWEEN ?2 AND ?3 ORDER BY n.id",
                )?
                .query_map(params![generation, first, last], |r| {
                    let kind: String = r.get(2)?;
                    Ok(ResolveNode {
                        id: r.get(0)?,
                        file_id: r.get(1)?,
                        kind: NodeKind::parse(&kind).unwrap_or(NodeKind::Variable),
                        name: r.get(3)?,
                        qname: r.get(4)?,
                        parent_id: r.get(5)?,
                        modifiers: r.get(6)?,
                        type_text: r.get(7)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let kinds = if all_refs {
                String::new()
            } else {
                format!(
                    "AND r.kind IN ('{}', '{}')",
                    RefKind::Inherit.as_str(),
                    RefKind::Implement.as_str()
                )
            };
            let refs = c
                .prepare_cached(&format!(
                    "SELECT r.id, r.file_id, r.src_id, r.kind, r.name, r.receiver, r.implementor
                     FROM gen_files g JOIN refs r ON r.file_id = g.file_id
                     WHERE g.generation = ?1 AND g.file_id BETWEEN ?2 AND ?3 {kinds} ORDER BY r.id"
                ))?
                .query_map(params![generation, first, last], |r| {
                    let kind: String = r.get(3)?;
                    Ok(ResolveRef {
                        id: r.get(0)?,
                        file_id: r.get(1)?,
                        src_id: r.get(2)?,
                        kind: RefKind::parse(&kind).unwrap_or(RefKind::Read),
                        name: r.get(4)?,
                        receiver: r.get(5)?,
                        implementor: r.get(6)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let imports = c
                .prepare_cached(
                    "SELECT i.id, i.file_id, i.src_id, i.source, i.name, i.alias, i.wildcard
                     FROM gen_files g JOIN imports i ON i.file_id = g.file_id
                     WHERE g.generation = ?1 AND g.file_id BETWEEN ?2 AND ?3 ORDER BY i.id",
                )?
                .query_map(params![generation, first, last], |r| {
                    Ok(ResolveImport {
                        id: r.get(0)?,
                        file_id: r.get(1)?,
                        src_id: r.get(2)?,
                        source: r.get(3)?,
                        name: r.get(4)?,
                        alias: r.get(5)?,
                        wildcard: r.get(6)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let bindings = c
                .prepare_cached(
                    "SELECT b.file_id, b.scope_id, b.name, b.type_text, b.value, b.line
                     FROM gen_files g JOIN bindings b ON b.file_id = g.file_id
                     WHERE g.generation = ?1 AND g.file_id BETWEEN ?2 AND ?3 ORDER BY b.file_id, b.rowid",
                )?
                .query_map(params![generation, first, last], |r| {
                    Ok(BindingRow {
                        file_id: r.get(0)?,
                        scope_id: r.get(1)?,
                        name: r.get(2)?,
                        type_text: r.get(3)?,
                        value: r.get(4)?,
                        line: r.get(5)?,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?;
            let ref_ranges = if all_refs {
                Vec::new()
            } else {
                c.prepare_cached(
                    "SELECT r.file_id, min(r.id), max(r.id), count(*)
                     FROM gen_files g JOIN refs r ON r.file_id = g.file_id
                     WHERE g.generation = ?1 AND g.file_id BETWEEN ?2 AND ?3 GROUP BY r.file_id",
                )?
                .query_map(params![generation, first, last], |r| {
                    Ok(RefRange {
                        file_id: r.get(0)?,
                        first: r.get(1)?,
                        last: r.get(2)?,
                        count: r.get::<_, i64>(3)? as u64,
                    })
                })?
                .collect::<rusqlite::Result<Vec<_>>>()?
            };
            Ok(Reused {
                nodes,
                refs,
                imports,
                bindings,
                ref_ranges,
            })
        };
        run().map_err(|e| self.err(e))
    }
}

impl GenerationBuilder<'_> {
    /// On an empty database (nothing published, no file versions), drops the secondary indexes
    /// so the bulk load does not maintain them row by row; they are rebuilt by
    /// [`GenerationBuilder::finish_bulk`] or at the latest before publishing. Returns whether
    /// bulk mode is on.
    pub fn begin_bulk(&mut self) -> Result<bool> {
        let empty = self.store.active_generation_id()? == 0 && self.first.file == 1;
        if empty {
            self.store.in_write_tx(|c| {
                for (name, _) in crate::schema::SECONDARY_INDEXES {
                    c.execute_batch(&format!("DROP INDEX IF EXISTS {name}"))?;
                }
                Ok(())
            })?;
            // No checkpoints while loading: the WAL is copied into the database once, at the end.
            self.store
                .conn
                .execute_batch("PRAGMA wal_autocheckpoint = 0")
                .map_err(|e| self.store.err(e))?;
            // Better: no WAL at all, when no other connection has the database open.
            self.unjournaled = crate::unjournaled::begin(&self.store.conn, &self.store.path);
            // Nothing mapped while loading: the pages a load reads back (references for
            // resolution, tables for the index builds) would otherwise count in the process's
            // memory, up to the whole map (73 MB of source: peak RSS 520 -> 440 MiB, the same
            // wall time). And a small page cache (`BULK_CACHE_KIB`). Restored by `finish_bulk`.
            crate::memory_pragmas(&self.store.conn, true).map_err(|e| self.store.err(e))?;
            self.bulk = true;
        }
        Ok(self.bulk)
    }

    /// Builds the indexes of the file-version tables (nodes, refs, imports) after a bulk load;
    /// the edge indexes follow in [`GenerationBuilder::finish_bulk`].
    pub fn build_file_indexes(&mut self) -> Result<()> {
        if self.bulk {
            self.store
                .in_write_tx(|c| crate::schema::create_indexes(c, true))?;
        }
        Ok(())
    }

    /// During a bulk load, copies what is committed so far from the WAL into the database on a
    /// second connection and thread, while this one goes on writing: the copy and its `fsync`
    /// (about 0.3 s for Django's 90 MB) overlap with resolution and the edge writes instead of
    /// adding to the end of the run. A passive checkpoint never blocks the writer, and a failure
    /// only leaves more for the final checkpoint of [`GenerationBuilder::finish_bulk`].
    /// Called again once the previous one has finished, it copies what was committed since.
    /// A load without the WAL (see `unjournaled.rs`) has nothing to copy: its file is synced
    /// behind instead, so the final sync only writes what came after.
    pub fn checkpoint_behind(&mut self) {
        if !self.bulk {
            return;
        }
        if let Some(previous) = self.checkpointer.take() {
            if !previous.is_finished() {
                self.checkpointer = Some(previous);
                return;
            }
            let _ = previous.join();
        }
        let path = self.store.path.clone();
        if self.unjournaled.is_some() {
            self.checkpointer = std::thread::Builder::new()
                .name("sextant-sync".into())
                .spawn(move || {
                    if let Err(e) = std::fs::File::open(&path).and_then(|f| f.sync_data()) {
                        tracing::debug!("background sync of {}: {e}", path.display());
                    }
                })
                .ok();
            return;
        }
        self.checkpointer = std::thread::Builder::new()
            .name("sextant-checkpoint".into())
            .spawn(move || {
                let run = || -> rusqlite::Result<()> {
                    let c = rusqlite::Connection::open(&path)?;
                    c.busy_timeout(std::time::Duration::from_secs(30))?;
                    c.pragma_update(None, "synchronous", "NORMAL")?;
                    c.execute_batch("PRAGMA wal_checkpoint(PASSIVE)")
                };
                if let Err(e) = run() {
                    tracing::debug!("background checkpoint of {}: {e}", path.display());
                }
            })
            .ok();
    }

    /// Rebuilds the secondary indexes after a bulk load.
    pub fn finish_bulk(&mut self) -> Result<()> {
        if self.bulk {
            self.store
                .in_write_tx(|c| crate::schema::create_indexes(c, false))?;
            let unjournaled = self.unjournaled.is_some();
            if unjournaled && let Some(sync) = self.checkpointer.take() {
                let _ = sync.join();
            }
            if let Some(load) = self.unjournaled.take() {
                load.end(&self.store.conn, &self.store.path, true)
                    .map_err(|e| {
                        crate::StoreError::Other(format!(
                            "database {}: syncing the loaded database: {e}",
                            self.store.path.display()
                        ))
                    })?;
            }
            if let Some(checkpointer) = self.checkpointer.take() {
                let _ = checkpointer.join();
            }
            // The planner statistics while the bulk load's small cache and no map are still in
            // force: sampling the new indexes through the map afterwards took ~100 MiB of
            // mapped pages into the process at its end on 73 MB of source.
            self.refresh_statistics();
            crate::memory_pragmas(&self.store.conn, false).map_err(|e| self.store.err(e))?;
            self.store
                .conn
                .execute_batch(if unjournaled {
                    // Loaded without a WAL: nothing to copy.
                    "PRAGMA wal_autocheckpoint = 1000;"
                } else {
                    "PRAGMA wal_autocheckpoint = 1000; PRAGMA wal_checkpoint(TRUNCATE);"
                })
                .map_err(|e| self.store.err(e))?;
            self.bulk = false;
        }
        Ok(())
    }

    /// Publishes the generation: one short transaction flips the active generation.
    pub fn publish(mut self, stats_json: &str) -> Result<i64> {
        self.finish_bulk()?;
        let generation = self.generation;
        self.store.in_write_tx(|c| {
            c.execute(
                "UPDATE generations SET status = 'published', finished_at = ?2, stats = ?3 WHERE id = ?1",
                params![generation, now(), stats_json],
            )?;
            c.execute(
                "UPDATE meta SET value = ?1 WHERE key = 'active_generation'",
                [generation.to_string()],
            )?;
            Ok(())
        })?;
        self.refresh_statistics();
        Ok(generation)
    }

    /// Planner statistics (bounded sampling), once, when [`GenerationBuilder::analyze`] asks:
    /// without them SQLite may scan `unresolved` instead of using `refs_name` for completeness
    /// queries.
    fn refresh_statistics(&mut self) {
        if std::mem::take(&mut self.analyze) {
            let _ = self
                .store
                .conn
                .execute_batch("PRAGMA analysis_limit = 1000; ANALYZE;");
        }
    }
}

impl GenerationBuilder<'_> {
    /// Publishes the generation for a workspace: ready to answer queries, but not active (the
    /// active generation is untouched); its status is
    /// [`WORKSPACE_STATUS`](crate::WORKSPACE_STATUS), and garbage collection keeps it only while
    /// a workspace names it.
    pub fn publish_detached(mut self, stats_json: &str) -> Result<i64> {
        self.finish_bulk()?;
        let generation = self.generation;
        self.store.in_write_tx(|c| {
            c.execute(
                "UPDATE generations SET status = ?4, finished_at = ?2, stats = ?3 WHERE id = ?1",
                params![
                    generation,
                    now(),
                    stats_json,
                    crate::workspaces::WORKSPACE_STATUS
                ],
            )?;
            Ok(())
        })?;
        Ok(generation)
    }
}

impl Store {
    /// Replaces a generation's stored summary (written once its final timings are known).
    pub fn set_generation_stats(&mut self, generation: i64, stats_json: &str) -> Result<()> {
        self.in_write_tx(|c| {
            c.execute(
                "UPDATE generations SET stats = ?2 WHERE id = ?1",
                params![generation, stats_json],
            )?;
            Ok(())
        })
    }

    /// Marks a generation as containing uncommitted files.
    pub fn mark_dirty(&mut self, generation: i64) -> Result<()> {
        self.in_write_tx(|c| {
            c.execute(
                "UPDATE generations SET dirty = 1 WHERE id = ?1",
                [generation],
            )?;
            Ok(())
        })
    }
}

/// Inserts a batch's file versions with their nodes, references, imports and bindings (not
/// their full-text rows), each file into its edge set of `sets`.
fn insert_files(
    statements: &crate::bulk::Statements,
    c: &rusqlite::Connection,
    generation: i64,
    batch: &[FileBatch],
    sets: &[i64],
) -> rusqlite::Result<()> {
    let mut file_stmt = c.prepare_cached(
        "INSERT INTO file_versions(id, path, hash, language, module, extractor, size, lines,
               lossy, node_id, diagnostics) VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11)",
    )?;
    let mut gen_stmt = c.prepare_cached(
        "INSERT INTO gen_files(generation, file_id, uncommitted, edge_set)
             VALUES (?1, ?2, ?3, ?4)",
    )?;
    for ((file, ..), set) in batch.iter().zip(sets) {
        file_stmt.execute(params![
            file.id,
            file.path,
            file.hash,
            file.language,
            file.module,
            file.extractor,
            file.size as i64,
            file.lines,
            file.lossy,
            file.node_id,
            file.diagnostics
        ])?;
        gen_stmt.execute(params![generation, file.id, file.uncommitted, set])?;
    }
    let nodes = || batch.iter().flat_map(|b| &b.1);
    crate::bulk::insert_rows(
        statements,
        c,
        "INSERT INTO nodes(id, file_id, stable_id, kind, name, qname, language, parent_id,
               start_line, start_col, end_line, end_col, start_byte, end_byte, signature, doc,
               visibility, modifiers, complexity, type_text)",
        20,
        ROWS_PER_INSERT,
        nodes(),
        |b, n| {
            b.set(1, n.id)?;
            b.set(2, n.file_id)?;
            b.set(3, &n.stable_id)?;
            b.set(4, n.kind.as_str())?;
            b.set(5, &n.name)?;
            b.set(6, &n.qname)?;
            b.set(7, &n.language)?;
            b.set(8, n.parent_id)?;
            b.set(9, n.span.start_line)?;
            b.set(10, n.span.start_col)?;
            b.set(11, n.span.end_line)?;
            b.set(12, n.span.end_col)?;
            b.set(13, n.span.start_byte)?;
            b.set(14, n.span.end_byte)?;
            b.set(15, &n.signature)?;
            b.set(16, &n.doc)?;
            b.set(17, n.visibility.as_str())?;
            b.set(18, &n.modifiers)?;
            b.set(19, n.complexity)?;
            b.set(20, &n.type_text)
        },
    )?;
    crate::bulk::insert_rows(
        statements,
        c,
        "INSERT INTO refs(id, file_id, src_id, kind, name, receiver, implementor, line, col,
               end_col)",
        10,
        ROWS_PER_INSERT,
        batch.iter().flat_map(|b| &b.2),
        |b, r| {
            b.set(1, r.id)?;
            b.set(2, r.file_id)?;
            b.set(3, r.src_id)?;
            b.set(4, r.kind.as_str())?;
            b.set(5, &r.name)?;
            b.set(6, &r.receiver)?;
            b.set(7, &r.implementor)?;
            b.set(8, r.line)?;
            b.set(9, r.col)?;
            b.set(10, r.end_col)
        },
    )?;
    crate::bulk::insert_rows(
        statements,
        c,
        "INSERT INTO imports(id, file_id, src_id, source, name, alias, wildcard, line, col)",
        9,
        ROWS_PER_INSERT,
        batch.iter().flat_map(|b| &b.3),
        |b, i| {
            b.set(1, i.id)?;
            b.set(2, i.file_id)?;
            b.set(3, i.src_id)?;
            b.set(4, &i.source)?;
            b.set(5, &i.name)?;
            b.set(6, &i.alias)?;
            b.set(7, i.wildcard)?;
            b.set(8, i.line)?;
            b.set(9, i.col)
        },
    )?;
    crate::bulk::insert_rows(
        statements,
        c,
        "INSERT INTO bindings(file_id, scope_id, name, type_text, value, line)",
        6,
        ROWS_PER_INSERT,
        batch.iter().flat_map(|b| &b.4),
        |q, b| {
            q.set(1, b.file_id)?;
            q.set(2, b.scope_id)?;
            q.set(3, &b.name)?;
            q.set(4, &b.type_text)?;
            q.set(5, &b.value)?;
            q.set(6, b.line)
        },
    )?;
    Ok(())
}

/// Inserts nodes' full-text rows: id, name tokens, qualified-name tokens, signature, doc.
fn insert_fts<'v>(
    statements: &crate::bulk::Statements,
    c: &rusqlite::Connection,
    rows: impl IntoIterator<Item = (i64, &'v str, &'v str, &'v str, Option<&'v str>)>,
) -> rusqlite::Result<()> {
    crate::bulk::insert_rows(
        statements,
        c,
        "INSERT INTO nodes_fts(rowid, name_tokens, qname_tokens, signature, doc)",
        5,
        1,
        rows,
        |b, (id, name_tokens, qname_tokens, signature, doc)| {
            b.set(1, id)?;
            b.set(2, name_tokens)?;
            b.set(3, qname_tokens)?;
            b.set(4, signature)?;
            b.set(5, doc)
        },
    )
}

/// Rows per statement of `bulk::insert_rows` into an ordinary table.
const ROWS_PER_INSERT: usize = 64;

#[cfg(test)]
mod tests {
    use super::{FileSets, FtsRows};

    /// Files from the first new id by offset, older ones and far ones in the map: each set is
    /// found, the last one given wins, and a file given none has none.
    #[test]
    fn file_sets_answer_as_a_map_would() {
        let mut sets = FileSets::new(100);
        let mut map = std::collections::HashMap::new();
        let given = [
            (103, 7),
            (100, 1),
            (5, 9),
            (-2, 4),
            (103, 8),
            (100 + FileSets::MAX_OFFSET, 11),
            (i64::MAX, 12),
            (i64::MIN, 13),
            (101, FileSets::NONE),
            (104, 0),
        ];
        for (file, set) in given {
            sets.insert(file, set);
            map.insert(file, set);
        }
        for file in [
            100,
            101,
            102,
            103,
            104,
            105,
            5,
            -2,
            6,
            100 + FileSets::MAX_OFFSET,
        ]
        .into_iter()
        .chain([i64::MAX, i64::MIN, 99])
        {
            assert_eq!(sets.get(file), map.get(&file).copied(), "file {file}");
        }
        assert_eq!(sets.new.len(), 5, "new files by offset");
        assert_eq!(sets.old.len(), 6);
    }

    /// Packed rows read back as pushed: empty columns, multi-byte text, a doc that is empty
    /// and one that is none.
    #[test]
    fn packed_full_text_rows_read_back_as_pushed() {
        let rows: Vec<(i64, [&str; 3], Option<&str>)> = vec![
            (
                7,
                ["get user", "app get user", "fn get_user()"],
                Some("Gets a user."),
            ),
            (-3, ["", "", ""], None),
            (i64::MAX, ["é", "ü ß", "日本"], Some("")),
            (8, ["x", "", "y"], None),
        ];
        let mut packed = FtsRows::default();
        for (id, columns, doc) in &rows {
            packed.push(*id, *columns, *doc);
        }
        assert_eq!(packed.len(), rows.len());
        assert!(packed.heap_bytes() >= packed.text.len());
        let back: Vec<(i64, [&str; 3], Option<&str>)> = packed
            .rows()
            .map(|(id, a, b, c, doc)| (id, [a, b, c], doc))
            .collect();
        assert_eq!(back, rows);
    }
}
