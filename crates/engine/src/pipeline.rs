//! Indexing: lock → walk → read + extract in parallel (unchanged file versions reused) → write
//! file versions in batches → resolve (imports, inheritance, then every reference in parallel) →
//! write edges → publish the generation → collect garbage.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rayon::prelude::*;
use rustc_hash::FxHashMap;
use sextant_lang::{Language, Registry};
use sextant_model::{FileFacts, NodeKind, RefKind, Visibility, stable_id};
use sextant_resolve as resolve;
use sextant_store::{
    BindingRow, EdgeRow, FileVersionRow, GenFile, ImportRow, NewNode, RefRow, Store, UnresolvedRow,
};
use sextant_vfs::{WalkConfig, read_source};

use crate::blobs::TreeBlobs;
use crate::home::DataDir;
use crate::layout::{Layout, cargo_package_name};
use crate::stored::{EdgeSets, StatCache, StoredVersions};
use crate::types::IndexSummary;
use crate::walked::WalkList;
use crate::warmup::{Warmup, compile_threads};
use crate::{Error, Result};

/// What the caller can tune.
#[derive(Debug, Clone)]
pub struct IndexOptions {
    /// Re-extract every file even if an identical version is stored.
    pub full: bool,
    /// Files larger than this are skipped.
    pub max_file_size: u64,
    /// Worker threads (0 = all cores).
    pub threads: usize,
    /// Data home (default: `$SEXTANT_HOME` or `~/.sextant`).
    pub home: Option<PathBuf>,
    /// A SCIP index of the same source: its answers replace the heuristic ones where it covers
    /// a site (`provenance = asserted`).
    pub scip: Option<PathBuf>,
    /// Set to true (from any thread) to stop: the run ends with [`Error::Cancelled`] before
    /// publishing, and the last published generation keeps serving.
    pub cancel: Option<Arc<std::sync::atomic::AtomicBool>>,
    /// The shared baseline cache (default: `$SEXTANT_CACHE_DIR`): a run with no local generation
    /// of HEAD's commit pulls the cached one first, and a clean run pushes what it published.
    pub cache_dir: Option<PathBuf>,
    /// Whether a first index's references also go to a temporary file as they are written,
    /// for resolution to read back a batch at a time (default); without, they are read back
    /// from the store. Either way memory holds a few batches, not every reference.
    pub spill_references: bool,
}

impl IndexOptions {
    fn cancelled(&self) -> bool {
        self.cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
    }

    fn check_cancel(&self) -> Result<()> {
        if self.cancelled() {
            return Err(Error::Cancelled);
        }
        Ok(())
    }
}

impl Default for IndexOptions {
    fn default() -> Self {
        IndexOptions {
            full: false,
            max_file_size: 1 << 20,
            threads: 0,
            home: None,
            scip: None,
            cancel: None,
            cache_dir: crate::cache::cache_dir_from_env(),
            spill_references: true,
        }
    }
}

/// Progress events for long work.
#[derive(Debug, Clone)]
pub enum Progress {
    /// Another process holds the index lock; waiting for it.
    WaitingForLock,
    Walking,
    /// Reading and extracting: files done of total, bytes done.
    Extracting {
        done: u64,
        total: u64,
        bytes: u64,
    },
    /// Resolving references: `done` of `total` resolved and written (reported once at the
    /// start, then after each batch).
    Resolving {
        done: u64,
        total: u64,
    },
    Writing,
    Publishing,
}

/// The writer commits extracted files in batches of this many. Batches of 0.5-2 MB of source
/// instead (so that less is left to write after the last file is extracted) cost effect's
/// writer 0.19-0.30 s -> 0.37-0.61 s of SQL: every commit adds an FTS segment and rewrites
/// the tables' last pages. Near the end a batch is also committed once it holds at least as much
/// source as the workers have yet to deliver (and at least `TAIL_BATCH_BYTES`): the commit then
/// overlaps their last files, and what is left to write after them shrinks by about half each
/// time (a few more commits), instead of up to 255 files (tokio's second batch) with a core idle.
const BATCH: usize = 256;
const TAIL_BATCH_BYTES: u64 = 128 << 10;
/// Inside a commit, the rows of every this many files (or this much source) are written as
/// they come (`GenerationBuilder::append_files`) and dropped: a commit's 256 files held 3-5 MB
/// of source's rows in memory until it, the largest item of the read phase's peak.
const APPEND_FILES: usize = 32;
const APPEND_BYTES: u64 = 512 << 10;
/// A commit also comes once the full-text rows it waits to write hold this much: documented
/// generated code (the AWS SDKs' Rust) has 9k nodes and 5-6 MB of them in 256 files, the
/// largest part of the read phase's heap besides the file being extracted.
const PENDING_TEXT_BYTES: usize = 2 << 20;

/// The resolver's rules per language, in first-use order.
#[derive(Default)]
pub(crate) struct RuleBook {
    pub(crate) rules: Vec<resolve::LangRules>,
    index: FxHashMap<String, usize>,
}

impl RuleBook {
    /// The index of a language's rules (added on first use).
    pub(crate) fn rule_for(&mut self, language: &Language) -> usize {
        if let Some(&i) = self.index.get(language.id()) {
            return i;
        }
        let m = &language.manifest;
        self.rules.push(resolve::LangRules {
            id: m.id.clone(),
            family: family(&m.id).to_string(),
            self_names: m.imports.self_names.clone(),
            super_names: m.imports.super_names.clone(),
            binds: resolve::Binds::parse(&m.imports.binds),
            implicit_self: m.imports.implicit_self,
            module_style: format!("{:?}", m.module).to_lowercase(),
            builtin_names: m.builtins.names.iter().cloned().collect(),
            builtin_members: m.builtins.members.iter().cloned().collect(),
            separate_call_names: m.imports.separate_call_names,
        });
        self.index
            .insert(language.id().to_string(), self.rules.len() - 1);
        self.rules.len() - 1
    }
}

/// Per-file output of the parallel stage.
pub(crate) struct Extracted {
    pub(crate) path: String,
    pub(crate) language: Arc<Language>,
    pub(crate) module: String,
    pub(crate) hash: String,
    pub(crate) size: u64,
    pub(crate) lossy: bool,
    pub(crate) uncommitted: bool,
    /// `None` when an identical version is reused.
    pub(crate) facts: Option<FileFacts>,
    pub(crate) reuse: Option<i64>,
    /// This run read and hashed the file (its content was not known from the stat cache).
    pub(crate) hashed: bool,
    /// The stat of the file when this run read it, for the stat cache.
    pub(crate) stat: Option<sextant_vfs::FileStat>,
    /// Its share of the source in flight ([`InFlight`]), given back when the item is dropped.
    pub(crate) held: Option<Held>,
}

/// The most source, in bytes, being extracted or waiting for the writer at once. Extraction
/// takes about 50 times a file's size while it runs (a 783 KB file of generated Rust: 40 MiB),
/// and what waits for the writer keeps its facts: without a bound, two dense files extracted
/// together set the read phase's peak. A file larger than this is extracted alone.
const IN_FLIGHT_BYTES: u64 = 1 << 20;

/// Source bytes in flight between the workers and the writer ([`IN_FLIGHT_BYTES`]).
pub(crate) struct InFlight {
    used: std::sync::Mutex<u64>,
    freed: std::sync::Condvar,
    limit: u64,
}

impl InFlight {
    pub(crate) fn new(limit: u64) -> Arc<InFlight> {
        Arc::new(InFlight {
            used: std::sync::Mutex::new(0),
            freed: std::sync::Condvar::new(),
            limit,
        })
    }

    /// Waits until `bytes` more fit (or nothing else is in flight), and takes them.
    pub(crate) fn take(self: &Arc<Self>, bytes: u64) -> Held {
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        while *used > 0 && used.saturating_add(bytes) > self.limit {
            used = self.freed.wait(used).unwrap_or_else(|e| e.into_inner());
        }
        *used += bytes;
        Held {
            of: Arc::clone(self),
            bytes,
        }
    }

    #[cfg(test)]
    fn used(&self) -> u64 {
        *self.used.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Bytes taken from an [`InFlight`], given back on drop (whatever drops the item: the writer,
/// a channel whose receiver is gone, an unwinding thread).
pub(crate) struct Held {
    of: Arc<InFlight>,
    bytes: u64,
}

impl Drop for Held {
    fn drop(&mut self) {
        let mut used = self.of.used.lock().unwrap_or_else(|e| e.into_inner());
        *used = used.saturating_sub(self.bytes);
        self.of.freed.notify_all();
    }
}

/// A file parsed ahead of its language's queries, to extract once they are compiled.
struct Ahead<'w> {
    file: crate::walked::Listed<'w>,
    language: Arc<Language>,
    source: sextant_vfs::SourceFile,
    parsed: sextant_extract::Parsed,
}

/// Reused file versions whose rows are loaded at once for resolution (`for_each_reused`).
const REUSED_FILES: usize = 512;

/// The most source that workers keep parsed ahead while queries compile. A cold run starts by
/// compiling the main language's queries (0.05-0.2 s; TypeScript's 0.2 s); workers waiting for
/// them left a core idle. Trees are several times their source, so this stays small: two cores
/// parse about 2 MB of TypeScript in the 0.2 s.
const AHEAD_BYTES: u64 = 4 << 20;

/// Bumped when the extractor's code changes what it produces from the same queries (a stored
/// file version made by an older extractor is re-extracted).
const FACTS_VERSION: u32 = 2;

pub(crate) fn extractor_version(language: &Language) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let text = format!(
        "{FACTS_VERSION}{:?}{}",
        language.manifest, language.query_source
    );
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{}-{:016x}", env!("CARGO_PKG_VERSION"), h)
}

/// Modifiers that make a definition a declaration standing for another one: body-less
/// prototypes, and Python `@overload` stubs (the implementation follows them).
pub(crate) fn is_declaration_modifier(m: &str) -> bool {
    m == "declaration" || m == "@overload" || m.ends_with(".overload")
}

fn family(id: &str) -> &str {
    match id {
        "javascript" | "typescript" | "tsx" => "js",
        "c" | "cpp" => "c",
        other => other,
    }
}

fn json_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// The summary as a small JSON object, stored with the generation.
pub(crate) fn summary_json(s: &IndexSummary) -> String {
    let counts = |c: &[(String, u64)]| {
        let parts: Vec<String> = c
            .iter()
            .map(|(k, v)| format!("\"{}\":{v}", json_escape(k)))
            .collect();
        format!("{{{}}}", parts.join(","))
    };
    format!(
        "{{\"context\":\"{}\",\"files\":{},\"files_reused\":{},\"bytes\":{},\"symbols\":{},\"references\":{},\"imports\":{},\"edges\":{},\"unresolved\":{},\"skipped\":{},\"wall_seconds\":{:.3}}}",
        json_escape(&s.context),
        s.files_indexed,
        s.files_reused,
        s.bytes,
        s.symbols,
        s.references,
        s.imports,
        counts(&s.edges),
        counts(&s.unresolved),
        counts(&s.skipped),
        s.wall_seconds
    )
}

pub(crate) fn lock(data: &DataDir, progress: &dyn Fn(Progress)) -> Result<std::fs::File> {
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(data.lock())
        .map_err(|e| Error::Io(format!("{}: {e}", data.lock().display())))?;
    match file.try_lock() {
        Ok(()) => {}
        Err(std::fs::TryLockError::WouldBlock) => {
            progress(Progress::WaitingForLock);
            file.lock()
                .map_err(|e| Error::Io(format!("{}: {e}", data.lock().display())))?;
        }
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(Error::Io(format!("{}: {e}", data.lock().display())));
        }
    }
    Ok(file)
}

/// Indexes the repository at `root` into its data directory and publishes a new generation.
pub fn index(
    root: &Path,
    options: &IndexOptions,
    progress: &dyn Fn(Progress),
) -> Result<IndexSummary> {
    let started = Instant::now();
    let mut phases: Vec<(String, f64)> = Vec::new();
    let mut mark = {
        let mut last = Instant::now();
        move |name: &str, phases: &mut Vec<(String, f64)>| {
            phases.push((name.to_string(), last.elapsed().as_secs_f64()));
            last = Instant::now();
        }
    };
    if !root.is_dir() {
        return Err(Error::NotADirectory(root.display().to_string()));
    }
    let root = root
        .canonicalize()
        .map_err(|e| Error::Io(format!("{}: {e}", root.display())))?;
    let registry = Registry::builtin()?;
    // A bad SCIP file fails before anything is written.
    let scip_index = match &options.scip {
        Some(path) => Some(sextant_scip::read(path)?),
        None => None,
    };
    let home = options.home.clone().unwrap_or_else(crate::home::data_home);
    let data = DataDir::in_home(&home, &root);
    std::fs::create_dir_all(&data.dir)
        .map_err(|e| Error::Io(format!("cannot create {}: {e}", data.dir.display())))?;
    let _ = std::fs::write(data.root_file(), root.display().to_string());
    let _lock = lock(&data, progress)?;
    let mut store = Store::open(&data.db())?;
    mark("open", &mut phases);
    store.collect_garbage(2)?;
    mark("gc_before", &mut phases);

    // The clock before anything is read: the stat cache trusts what this run hashes only for
    // files whose last change is older than this (minus the racy window).
    let run_clock = sextant_vfs::clock_ns();
    // Git: HEAD, only when `root` is the top of a working tree (opened once). HEAD's blob ids
    // (is a file uncommitted?) are read only when a clean generation of HEAD's commit does not
    // already say: see `uncommitted_of` below.
    let git = sextant_git::OpenRepo::discover(&root).filter(|g| {
        g.workdir()
            .canonicalize()
            .is_ok_and(|w| w == root.as_path())
    });
    let in_git = git.is_some();
    let head = git.as_ref().and_then(|g| g.head().ok());
    let head_blobs: std::sync::OnceLock<Option<TreeBlobs>> = std::sync::OnceLock::new();
    mark("git", &mut phases);

    options.check_cancel()?;
    progress(Progress::Walking);
    let mut exclude = vec![data.dir.clone()];
    if let Ok(home) = home.canonicalize() {
        exclude.push(home);
    }
    let walk_config = WalkConfig {
        max_file_size: options.max_file_size,
        exclude,
        ..WalkConfig::default()
    };
    // The walk (file-system bound) overlaps with reading what the store knows (CPU bound).
    let head_commit = head.as_ref().and_then(|h| h.commit.clone());
    // A run that extracts everything compiles each language's queries before the workers need
    // them (up to ~0.4 s each for C++ and Ruby), beside the walk: see [`Warmup`].
    let cold = options.full || store.active_generation_id()? == 0;
    let warmup = Warmup::new(compile_threads(options.threads));
    let wanted = |p: &str| match registry.for_path(p) {
        Some(language) => {
            if cold {
                warmup.saw(language);
            }
            true
        }
        None => false,
    };
    // The files found go to a list in temporary files (see `walked.rs`), numbered by language.
    let language_number = |path: &str| -> Option<u32> {
        let language = registry.for_path(path)?;
        let at = registry
            .languages()
            .iter()
            .position(|l| l.id() == language.id())?;
        u32::try_from(at).ok()
    };
    let mut list = WalkList::in_dir(&data.dir);
    let (mut walk, stored) = std::thread::scope(|scope| {
        let list = &mut list;
        let walking = scope.spawn(|| {
            sextant_vfs::walk_into(&root, &walk_config, wanted, &mut |f| {
                // Every file the walk keeps is `wanted`: it has a language.
                list.push(&f, language_number(f.path.as_str()).unwrap_or_default());
            })
        });
        let stored = stored_state(&store, &data.dir, None, head_commit.as_deref());
        let walk = walking
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (walk, stored)
    });
    let mut stored = stored?;
    {
        let ids: Vec<&str> = registry.languages().iter().map(|l| l.id()).collect();
        list.finish(&ids).map_err(|e| {
            Error::Io(format!(
                "cannot keep the list of files found in {}: {e}",
                data.dir.display()
            ))
        })?;
    }
    let (cargo, npm_packages) = manifests(&walk);
    let layout = Layout::new(list.paths(), &cargo);
    mark("walk", &mut phases);

    let versions: FxHashMap<String, String> = registry
        .languages()
        .iter()
        .map(|l| (l.id().to_string(), extractor_version(l)))
        .collect();

    let context = resolution_context(&cargo, &npm_packages, &versions);

    // The shared baseline cache: pull HEAD's baseline when no local generation has its commit.
    let (mut cache, pulled) = match (&options.cache_dir, &head_commit) {
        (Some(dir), Some(commit)) if !options.full => {
            let (report, pulled) =
                crate::cache::pull_before_run(dir, &root, commit, &context, &mut store);
            (Some(report), pulled)
        }
        // A full run pulls nothing but pushes its clean result.
        (Some(dir), Some(_)) => (Some(crate::cache::report_without_pull(dir, &root)), None),
        (Some(dir), None) => (
            Some(crate::cache::CacheReport {
                dir: dir.clone(),
                ..Default::default()
            }),
            None,
        ),
        _ => (None, None),
    };
    if pulled.is_some() {
        mark("pull", &mut phases);
    }

    if pulled.is_some() {
        // The pulled generation's versions come first.
        stored = stored_state(&store, &data.dir, pulled, head_commit.as_deref())?;
    }
    let StoredState {
        active,
        versions: stored_versions,
        stat_cache,
    } = stored;
    let uncommitted_of = |path: &str, hash: &str| -> bool {
        if !in_git {
            return false;
        }
        if let Some(h) = stored_versions.marked_hash(path) {
            return h != hash;
        }
        let blobs = head_blobs.get_or_init(|| {
            let git = git.as_ref()?;
            TreeBlobs::collect(&data.dir, |each| git.each_head_blob(each))
        });
        blobs
            .as_ref()
            .is_none_or(|b| b.is_empty() || !b.has(path, hash))
    };
    // Read + extract in parallel; write in batches on this thread.
    let total = list.len() as u64;
    // Source bytes the writer has yet to receive (see `BATCH`).
    let mut unreceived: u64 = list.bytes();
    let done = AtomicU64::new(0);
    let bytes_done = AtomicU64::new(0);
    let mut skipped_at_read: Vec<(String, &'static str, u64)> = Vec::new();
    let (tx, rx) = crossbeam_channel::bounded::<
        std::result::Result<Extracted, (String, &'static str, u64)>,
    >(512);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(options.threads)
        .stack_size(64 << 20)
        .build()
        .map_err(|e| Error::Io(e.to_string()))?;
    // The list is in the order files are read: the languages with the most files first, so
    // that a rare language (a few C++ or Ruby files in a C repository) is extracted last, when
    // its queries are compiled (path order within a language). Resolution does not depend on
    // the order files arrive in.
    let mut builder = store.begin_generation(
        head.as_ref().and_then(|h| h.commit.as_deref()),
        head.as_ref().and_then(|h| h.branch.as_deref()),
        false,
    )?;
    let first = builder.first;
    let mut next = first;
    builder.begin_bulk()?;

    // Resolver inputs gathered as files arrive.
    // Without a SCIP index (whose merge needs every reference's result at once), references
    // are read back for resolution instead of being kept in memory.
    let mut inputs = ResolverInputs {
        streamed: scip_index.is_none(),
        ..ResolverInputs::default()
    };
    if inputs.streamed && options.spill_references {
        inputs.ref_pieces = crate::spill::RefPieces::new(&data.dir)
            .inspect_err(|e| {
                tracing::warn!(
                    "references read back from the store ({}: {e})",
                    data.dir.display()
                );
            })
            .ok();
    }
    if inputs.streamed {
        inputs.ref_ranges = FileRanges::in_dir(&data.dir)
            .inspect_err(|e| {
                let dir = data.dir.display();
                tracing::warn!("reference ranges kept in memory ({dir}: {e})");
            })
            .unwrap_or_default();
        inputs.spill = crate::spill::BindingSpill::new(&data.dir)
            .inspect_err(|e| {
                tracing::warn!("no binding pages in {}: {e}", data.dir.display());
            })
            .ok();
        // Only beside binding pages: a resolver with either is never patched.
        if inputs.spill.is_some() {
            inputs.symbol_spill = crate::spill::SymbolSpill::new(&data.dir)
                .inspect_err(|e| {
                    tracing::warn!("definitions kept in memory ({}: {e})", data.dir.display());
                })
                .ok();
            // Beside mapped definitions: the resolver built from them is never patched.
            if inputs.symbol_spill.is_some() {
                inputs.file_spill = crate::mapped::table_out(&data.dir)
                    .map(resolve::FilesOut::new)
                    .inspect_err(|e| {
                        tracing::warn!("files kept in memory ({}: {e})", data.dir.display());
                    })
                    .ok();
            }
            inputs.import_pieces = crate::spill::ImportPieces::new(&data.dir)
                .inspect_err(|e| {
                    tracing::warn!("imports kept in memory ({}: {e})", data.dir.display());
                })
                .ok();
            inputs.clause_pieces = crate::spill::RefPieces::new(&data.dir)
                .inspect_err(|e| {
                    let dir = data.dir.display();
                    tracing::warn!("inheritance clauses kept in memory ({dir}: {e})");
                })
                .ok();
        }
    }
    {
        // Room for a first index's rows at once (our corpora have a reference per 50-115 bytes
        // of source, a symbol per 300-430, a binding per 100-300), instead of doubling vectors
        // of 100k entries on the writer thread. Capped: a large repository mostly reused, or
        // one bigger than 2M references, grows them as before.
        let bytes = usize::try_from(unreceived).unwrap_or(usize::MAX);
        if !inputs.streamed {
            inputs.refs.reserve((bytes / 48).min(2 << 20));
        }
        // ~60 bytes of qualified name and type per symbol.
        let symbols = (bytes / 256).min(256 << 10);
        if inputs.symbol_spill.is_none() {
            inputs.symbols.reserve(symbols, symbols * 64);
        }
        // ~15 bytes of strings per binding.
        let bindings = (bytes / 128).min(512 << 10);
        if inputs.spill.is_none() {
            inputs.bindings.reserve(bindings, bindings * 16);
        }
        if inputs.file_spill.is_none() {
            inputs.files.reserve(list.len());
        }
    }
    let mut book = RuleBook::default();
    let mut rule_for = |language: &Language| book.rule_for(language);

    let mut summary = IndexSummary {
        root: root.clone(),
        db_path: data.db(),
        commit: head.as_ref().and_then(|h| h.commit.clone()),
        branch: head.as_ref().and_then(|h| h.branch.clone()),
        ignored_files: walk.ignored_files as u64,
        context: context.clone(),
        ..IndexSummary::default()
    };
    let mut reused: Vec<(i64, bool)> = Vec::new();
    let mut languages: FxHashMap<String, u64> = FxHashMap::default();
    let mut batch = Vec::new();
    let mut batch_bytes = 0u64;
    // Files and source appended in the open transaction (see `APPEND_FILES`).
    let (mut commit_files, mut commit_bytes) = (0usize, 0u64);
    let mut write_error: Option<Error> = None;
    // Time the writer thread spends building rows and in SQL while workers extract.
    let mut rows_seconds = 0.0f64;
    let mut sql_seconds = 0.0f64;
    // The files this run read and hashed, for the stat cache.
    let mut stat_rows = crate::stat_rows::StatRows::new(&data.dir);

    // Files parsed while their language's queries compile (see `AHEAD_BYTES`).
    let ahead: std::sync::Mutex<Vec<Ahead>> = std::sync::Mutex::new(Vec::new());
    let ahead_bytes = AtomicU64::new(0);
    let in_flight = InFlight::new(IN_FLIGHT_BYTES);
    std::thread::scope(|scope| {
        let in_flight = &in_flight;
        let list = &list;
        let root = &root;
        let registry = &registry;
        let layout = &layout;
        let stored_versions = &stored_versions;
        let versions = &versions;
        let stat_cache = &stat_cache;
        let done = &done;
        let bytes_done = &bytes_done;
        let pool = &pool;
        let ahead = &ahead;
        let ahead_bytes = &ahead_bytes;
        // An extracted file's item for the writer.
        let extracted = move |path: &str,
                              language: Arc<Language>,
                              source: sextant_vfs::SourceFile,
                              facts: FileFacts| {
            let style = language.manifest.module;
            let module = layout.module(style, path, facts.package.as_deref());
            Extracted {
                path: path.to_string(),
                language,
                module,
                hash: source.hash,
                size: source.size,
                lossy: source.lossy,
                uncommitted: false,
                facts: Some(facts),
                reuse: None,
                hashed: true,
                stat: source.stat,
                held: None,
            }
        };
        type Sent = std::result::Result<Extracted, (String, &'static str, u64)>;
        let send = move |tx: &mut crossbeam_channel::Sender<Sent>, size: u64, out: Sent| {
            bytes_done.fetch_add(size, Ordering::Relaxed);
            if done.fetch_add(1, Ordering::Relaxed) + 1 == total {
                tracing::debug!(
                    seconds = started.elapsed().as_secs_f64(),
                    "last file extracted"
                );
            }
            let _ = tx.send(out);
        };
        // Takes the files parsed ahead whose queries are compiled by now (all of them when `all`).
        let take_ahead = move |all: bool| -> Vec<Ahead> {
            let mut pending = ahead.lock().unwrap_or_else(|e| e.into_inner());
            let (ready, waiting) = std::mem::take(&mut *pending)
                .into_iter()
                .partition(|a| all || sextant_extract::queries_ready(&a.language));
            *pending = waiting;
            ready
        };
        let finish_ahead = move |tx: &mut crossbeam_channel::Sender<Sent>, a: Ahead| {
            let path = a.file.path;
            let facts =
                sextant_extract::extract_parsed(&a.language, path, &a.source.text, a.parsed);
            ahead_bytes.fetch_sub(a.source.size, Ordering::Relaxed);
            send(
                tx,
                a.file.size,
                Ok(extracted(path, a.language, a.source, facts)),
            );
        };
        scope.spawn(move || {
            pool.install(|| {
                (0..list.len())
                    .into_par_iter()
                    .for_each_with(tx.clone(), |tx, i| {
                        let file = list.get(i);
                        let path = file.path;
                        if options.cancelled() {
                            return;
                        }
                        if ahead_bytes.load(Ordering::Relaxed) > 0 {
                            for a in take_ahead(false) {
                                finish_ahead(tx, a);
                            }
                        }
                        let out = (|| {
                            let language = registry
                                .for_path(path)
                                .expect("walk filtered by language")
                                .clone();
                            // The module may depend on the declared package, known only after extraction.
                            let style = language.manifest.module;
                            // A stored version of this content that can be reused as it is. A
                            // pulled baseline's versions come first: they are preferred, so a
                            // clean tree matches it exactly and shares its resolution.
                            let reusable = |hash: &str| {
                                let extractor = versions.get(language.id())?;
                                stored_versions
                                    .of(path)
                                    .filter(|_| !options.full)
                                    .find(|p| {
                                        p.hash == hash
                                            && p.language == language.id()
                                            && p.extractor == extractor
                                    })
                                    .filter(|p| {
                                        style == sextant_lang::ModuleStyle::Declared
                                            || p.module == layout.module(style, path, None)
                                    })
                            };
                            // Unchanged since it was hashed (stat cache): reused without reading.
                            let known = file
                                .stat
                                .as_ref()
                                .filter(|_| !options.full)
                                .and_then(|now| {
                                    stat_cache.get(path).filter(|(then, _, verified)| {
                                        then.still_matches(now, *verified)
                                    })
                                })
                                .and_then(|(_, hash, _)| reusable(hash).map(|p| (hash, p)));
                            if let Some((hash, p)) = known {
                                return Ok(Some(Extracted {
                                    path: path.to_string(),
                                    language,
                                    module: p.module.to_string(),
                                    hash: hash.to_string(),
                                    size: file.size,
                                    lossy: false,
                                    // Decided on the writer thread (`uncommitted_of`).
                                    uncommitted: false,
                                    facts: None,
                                    reuse: Some(p.id),
                                    hashed: false,
                                    stat: None,
                                    held: None,
                                }));
                            }
                            let source =
                                read_source(&root.join(path), options.max_file_size, 10_000, 400)
                                    .map_err(|e| (path.to_string(), e.reason.as_str(), file.size))?;
                            if let Some(p) = reusable(&source.hash) {
                                return Ok(Some(Extracted {
                                    path: path.to_string(),
                                    module: p.module.to_string(),
                                    language,
                                    hash: source.hash,
                                    size: source.size,
                                    lossy: source.lossy,
                                    uncommitted: false,
                                    facts: None,
                                    reuse: Some(p.id),
                                    hashed: true,
                                    stat: source.stat,
                                    held: None,
                                }));
                            }
                            // Its queries still compiling: parsed now, extracted once they are ready,
                            // instead of this worker waiting for them with a core idle.
                            if !sextant_extract::queries_ready(&language)
                                && ahead_bytes.load(Ordering::Relaxed) + source.size <= AHEAD_BYTES
                            {
                                ahead_bytes.fetch_add(source.size, Ordering::Relaxed);
                                let parsed = sextant_extract::parse_ahead(&language, &source.text);
                                ahead.lock().unwrap_or_else(|e| e.into_inner()).push(Ahead {
                                    file,
                                    language,
                                    source,
                                    parsed,
                                });
                                return Ok(None);
                            }
                            let held = in_flight.take(source.size);
                            let facts = sextant_extract::extract(&language, path, &source.text);
                            let mut item = extracted(path, language, source, facts);
                            item.held = Some(held);
                            Ok(Some(item))
                        })();
                        match out {
                            Ok(None) => {}
                            Ok(Some(item)) => send(tx, file.size, Ok(item)),
                            Err(skip) => send(tx, file.size, Err(skip)),
                        }
                    });
                // What is still parsed ahead (a small repository parses all of its files
                // before its queries compile): extracted in parallel, waiting for the compiles.
                if !options.cancelled() {
                    take_ahead(true)
                        .into_par_iter()
                        .for_each_with(tx.clone(), |tx, a| finish_ahead(tx, a));
                }
            });
            drop(tx);
        });

        let mut last_report = Instant::now();
        for item in rx.iter() {
            if last_report.elapsed().as_millis() >= 100 {
                progress(Progress::Extracting {
                    done: done.load(Ordering::Relaxed),
                    total,
                    bytes: bytes_done.load(Ordering::Relaxed),
                });
                last_report = Instant::now();
            }
            let mut item = match item {
                Ok(item) => item,
                Err(skip) => {
                    unreceived = unreceived.saturating_sub(skip.2);
                    skipped_at_read.push(skip);
                    continue;
                }
            };
            if write_error.is_some() {
                continue;
            }
            summary.files_hashed += u64::from(item.hashed);
            item.uncommitted = uncommitted_of(&item.path, &item.hash);
            if let Some(stat) = &item.stat {
                stat_rows.push(stat_row(&item.path, stat, &item.hash, run_clock));
            }
            summary.files_indexed += 1;
            summary.bytes += item.size;
            unreceived = unreceived.saturating_sub(item.size);
            summary.files_uncommitted += u64::from(item.uncommitted);
            *languages.entry(item.language.id().to_string()).or_default() += 1;
            if let Some(id) = item.reuse {
                reused.push((id, item.uncommitted));
                summary.files_reused += 1;
                continue;
            }
            summary.bytes_extracted += item.size;
            let lang_rules = rule_for(&item.language);
            let t_rows = Instant::now();
            if item.facts.as_ref().is_some_and(|f| {
                f.diagnostics.iter().any(|d| {
                    !matches!(
                        d.kind,
                        sextant_model::DiagnosticKind::Unsupported
                            | sextant_model::DiagnosticKind::QueryLimit
                    )
                })
            }) {
                summary.files_with_syntax_errors += 1;
            }
            let extractor = versions
                .get(item.language.id())
                .map(String::as_str)
                .unwrap_or_default();
            let item_size = item.size;
            let rows = file_rows(item, extractor, &mut next, lang_rules, &mut inputs);
            batch.push(rows);
            rows_seconds += t_rows.elapsed().as_secs_f64();
            batch_bytes += item_size;
            commit_files += 1;
            commit_bytes += item_size;
            let commit = commit_files >= BATCH
                || (commit_bytes >= TAIL_BATCH_BYTES && commit_bytes >= unreceived);
            if commit || batch.len() >= APPEND_FILES || batch_bytes >= APPEND_BYTES {
                batch_bytes = 0;
                let t_sql = Instant::now();
                let written = builder.append_files(&mut batch).and_then(|()| {
                    if commit || builder.pending_bytes() >= PENDING_TEXT_BYTES {
                        (commit_files, commit_bytes) = (0, 0);
                        builder.commit_files()
                    } else {
                        Ok(())
                    }
                });
                if let Err(e) = written {
                    write_error = Some(e.into());
                }
                sql_seconds += t_sql.elapsed().as_secs_f64();
                absorb_rows(&mut batch, &mut inputs);
            }
        }
    });
    if let Some(e) = write_error {
        return Err(e);
    }
    progress(Progress::Extracting {
        done: total,
        total,
        bytes: bytes_done.load(Ordering::Relaxed),
    });
    progress(Progress::Writing);
    builder.append_files(&mut batch)?;
    builder.commit_files()?;
    absorb_rows(&mut batch, &mut inputs);
    drop(batch);
    // Cached paths no longer indexed (gone, or skipped when read) leave the stat cache.
    let stat_forget: Vec<String> = if stat_cache.is_empty() {
        Vec::new()
    } else {
        let unread: rustc_hash::FxHashSet<&str> =
            skipped_at_read.iter().map(|(p, ..)| p.as_str()).collect();
        stat_cache
            .paths()
            .filter(|p| {
                !language_number(p).is_some_and(|l| list.contains(p, l)) || unread.contains(p)
            })
            .map(str::to_string)
            .collect()
    };
    // Of the walk, only the skipped files are still needed (for the summary): the list of
    // files goes before resolution.
    let walk_skipped = std::mem::take(&mut walk.skipped);
    drop(layout);
    drop(walk);
    drop(list);
    tracing::debug!(
        seconds = started.elapsed().as_secs_f64(),
        parse_chunks_mib = sextant_lang::parse_chunk_bytes() as f64 / 1048576.0,
        "last file written"
    );
    // What the read phase freed goes back before the resolver's tables are built, and what
    // the rest of the run frees goes back at once. The parse arenas' spare chunks go too: no
    // more parsing (up to 16 MiB a worker, 20-30 MiB of every later phase on s1-s3).
    crate::release_memory(&pool);
    let _eager = crate::EagerRelease::start();
    if tracing::enabled!(tracing::Level::DEBUG) {
        tracing::debug!(
            parts = mib_parts(&inputs.heap_bytes()),
            "resolver inputs (MiB)"
        );
    }
    mark("read", &mut phases);
    // Nothing new: if an earlier generation has exactly these file versions and the same
    // context (e.g. the commit checked out again, or a re-index of an unchanged tree), its
    // resolution is this one's: share its edge sets and publish without resolving.
    if summary.files_indexed == summary.files_reused
        && options.scip.is_none()
        && !options.full
        && let Some((base, sets, stats, base_dirty)) =
            same_generation(builder.store(), &data.dir, &reused, &context)?
    {
        mark("same", &mut phases);
        if !base_dirty && summary.files_uncommitted == 0 {
            // A clean tree sharing a clean generation (a commit checked out again): its rows
            // as they are, in one statement.
            builder.copy_files_from(base, &[], &[])?;
        } else {
            let files: Vec<GenFile> = reused
                .iter()
                .map(|&(file, uncommitted)| {
                    let (set, hash) = sets.get(file).unzip();
                    GenFile {
                        file,
                        uncommitted,
                        set,
                        hash: hash.flatten(),
                    }
                })
                .collect();
            builder.add_files(&files)?;
        }
        let mut skipped: Vec<(String, &'static str, u64)> = walk_skipped
            .iter()
            .map(|s| (s.path.as_str().to_string(), s.reason.as_str(), s.size))
            .collect();
        skipped.extend(skipped_at_read);
        builder.write_skipped(&skipped)?;
        builder.analyze = false;
        let mut skip_counts: FxHashMap<String, u64> = FxHashMap::default();
        for (_, reason, _) in &skipped {
            *skip_counts.entry(reason.to_string()).or_default() += 1;
        }
        fill_from_stats(&mut summary, &stats);
        summary.skipped = sorted(skip_counts);
        summary.languages = sorted(languages);
        summary.dirty = summary.files_uncommitted > 0;
        summary.reused_generation = Some(base);
        mark("share", &mut phases);
        options.check_cancel()?;
        progress(Progress::Publishing);
        summary.wall_seconds = started.elapsed().as_secs_f64();
        let generation = builder.publish(&summary_json(&summary))?;
        if summary.dirty {
            store.mark_dirty(generation)?;
        }
        mark("publish", &mut phases);
        store.collect_garbage(2)?;
        save_stat_cache(&mut store, stat_rows, &stat_forget);
        mark("gc", &mut phases);
        push(&mut cache, &store, generation, &summary, &mut phases);
        summary.cache = cache;
        summary.generation = generation;
        summary.phases = phases;
        summary.wall_seconds = started.elapsed().as_secs_f64();
        summary.db_bytes = store.size_bytes();
        store.set_generation_stats(generation, &summary_json(&summary))?;
        return Ok(summary);
    }
    builder.reuse_files(&reused)?;
    mark("extract", &mut phases);
    phases.push(("extract.writer_rows".into(), rows_seconds));
    phases.push(("extract.writer_sql".into(), sql_seconds));

    let streamed = inputs.streamed;
    let mut ref_ranges = std::mem::take(&mut inputs.ref_ranges);
    // A spill that cannot be finished leaves every reference to be read back from the store.
    let spilled_refs = inputs.ref_pieces.take().and_then(|p| {
        p.finish()
            .inspect_err(|e| tracing::warn!("references read back from the store: {e}"))
            .ok()
    });
    let ResolverInputs {
        files: mut r_files,
        file_spill: mut r_file_spill,
        symbols: mut r_symbols,
        refs: mut r_refs,
        imports: mut r_imports,
        bindings: mut r_bindings,
        spill: mut r_spill,
        symbol_spill: mut r_symbol_spill,
        import_pieces: mut r_import_pieces,
        clause_pieces: mut r_clause_pieces,
        spill_error,
        ..
    } = inputs;
    if let Some(e) = spill_error {
        return Err(Error::Io(format!("pages on disk: {e}")));
    }
    if !reused.is_empty() {
        let reused_ids: rustc_hash::FxHashSet<i64> = reused.iter().map(|(id, _)| *id).collect();
        for f in stored_versions
            .iter()
            .filter(|f| reused_ids.contains(&f.id))
        {
            if let Some(language) = registry.get(f.language) {
                let file = resolve::FileRef {
                    id: f.id,
                    node: f.node,
                    path: f.path,
                    module: f.module,
                    lang: rule_for(language),
                };
                push_file(&mut r_files, r_file_spill.as_mut(), file)
                    .map_err(|e| Error::Io(format!("files: {e}")))?;
            }
        }
        drop(reused_ids);
        // The reused versions' rows, a part at a time, to where the new versions' went.
        builder.for_each_reused(!streamed, REUSED_FILES, |part| -> Result<()> {
            let sextant_store::Reused {
                nodes,
                refs,
                imports,
                bindings,
                ref_ranges: reused_ranges,
            } = part;
            for range in &reused_ranges {
                ref_ranges
                    .push(range)
                    .map_err(|e| Error::Io(format!("reference ranges: {e}")))?;
            }
            match r_symbol_spill.as_mut() {
                Some(spill) => {
                    for n in nodes.chunk_by(|a, b| a.file_id == b.file_id) {
                        let defs = n.iter().filter(|n| n.kind != NodeKind::File);
                        spill
                            .add(n[0].file_id, defs.map(|n| symbol_ref!(n)))
                            .map_err(|e| Error::Io(format!("definitions: {e}")))?;
                    }
                }
                None => {
                    for n in nodes.iter().filter(|n| n.kind != NodeKind::File) {
                        r_symbols.push(symbol_ref!(n));
                    }
                }
            }
            drop(nodes);
            match r_spill.as_mut() {
                Some(spill) => spill
                    .add(&bindings, &mut r_bindings)
                    .map_err(|e| Error::Io(format!("binding pages: {e}")))?,
                None => push_bindings(&mut r_bindings, &bindings),
            }
            drop(bindings);
            let refs = refs.into_iter().map(resolve_ref);
            match r_clause_pieces.as_mut() {
                Some(pieces) => by_file(refs.collect(), |r| r.file, |refs| pieces.add(refs))
                    .map_err(|e| Error::Io(format!("inheritance clauses: {e}")))?,
                None => r_refs.extend(refs),
            }
            let imports = imports.into_iter().map(resolve_imp);
            match r_import_pieces.as_mut() {
                Some(pieces) => {
                    by_file(imports.collect(), |i| i.file, |imports| pieces.add(imports))
                        .map_err(|e| Error::Io(format!("imports: {e}")))?
                }
                None => r_imports.extend(imports),
            }
            Ok(())
        })?;
    }
    ref_ranges
        .sort()
        .map_err(|e| Error::Io(format!("reference ranges: {e}")))?;
    summary.symbols = r_symbols.len() as u64;
    summary.references = if streamed {
        ref_ranges.total()
    } else {
        r_refs.len() as u64
    };
    summary.imports = r_imports.len() as u64 + r_import_pieces.as_ref().map_or(0, |p| p.count());
    mark("load", &mut phases);

    // Resolve.
    options.check_cancel()?;
    progress(Progress::Resolving {
        done: 0,
        total: summary.references,
    });
    // Resolution must not depend on the order in which files arrived from the workers: it is fed
    // in path order (ids inside a file follow the source order).
    let r_files: resolve::Files = match r_file_spill {
        Some(out) => out
            .finish(&mut || crate::mapped::table_out(&data.dir))
            .map_err(|e| Error::Io(format!("files: {e}")))?,
        None => {
            r_files.sort_by(|a, b| a.path.cmp(&b.path));
            r_files.into()
        }
    };
    let all_files: Vec<i64> = r_files.iter().map(|f| f.id).collect();
    // A file whose edges come out exactly as in the active generation shares that edge set:
    // only the sets that changed are written (a commit touching ten files writes ten sets).
    let previous_sets = if active != 0 && !options.full {
        EdgeSets::collect(&data.dir, |each| {
            builder.store().each_set_hash(active, each)
        })?
    } else {
        EdgeSets::default()
    };
    let mut sets = SetRecord::new(&previous_sets);
    let rules = book.rules;
    let pages = r_spill
        .map(crate::spill::BindingSpill::finish)
        .transpose()?;
    if let Some(spill) = r_symbol_spill {
        r_symbols = spill
            .finish(&all_files)
            .map_err(|e| Error::Io(format!("definitions: {e}")))?;
        summary.symbols = r_symbols.len() as u64;
    }
    let r_imports = match r_import_pieces {
        Some(pieces) => Imports::Disk(
            pieces
                .finish(all_files.clone())
                .map_err(|e| Error::Io(format!("imports: {e}")))?,
        ),
        None => Imports::Memory(r_imports),
    };
    let r_clauses = r_clause_pieces
        .map(crate::spill::RefPieces::finish)
        .transpose()
        .map_err(|e| Error::Io(format!("inheritance clauses: {e}")))?;
    let tables = move |inheritance: &mut [resolve::Ref], head_dir: Option<&Path>| {
        prepare_resolver(
            TableInputs {
                files: r_files,
                clauses: r_clauses,
                symbols: r_symbols,
                imports: r_imports,
                bindings: r_bindings,
                pages,
                rules,
                npm_packages,
            },
            inheritance,
            head_dir,
        )
    };
    let (edge_counts, unresolved_counts) = if streamed {
        // References are read back from the store a batch of files at a time (path order),
        // resolved on the pool and written as each batch comes back: memory holds the
        // resolver's tables and a few batches, not every reference and every edge row.
        let ranges = ref_ranges;
        let batches = ref_batches(&all_files, &ranges);
        let batch_ranges = |b: usize| -> Vec<sextant_store::RefRange> {
            all_files[batches[b].clone()]
                .iter()
                .filter_map(|&f| ranges.get(f))
                .collect()
        };
        let mut counts = Counts::default();
        let all_files = &all_files;
        let batches = &batches;
        let pool = &pool;
        let leftover = std::thread::scope(|scope| -> Result<RowRun> {
            let (ask, asked) = crossbeam_channel::unbounded::<(usize, Vec<resolve::Ref>)>();
            let (answer, answers) = crossbeam_channel::unbounded::<(usize, ResolvedRows)>();
            let t0 = Instant::now();
            let spill_dir = data.dir.clone();
            let resolution = scope.spawn(move || {
                // Only the inheritance clauses are in memory (see `absorb_rows`).
                let prepared = tables(&mut r_refs, Some(&spill_dir));
                free_behind(r_refs);
                tracing::debug!(seconds = t0.elapsed().as_secs_f64(), "resolver ready");
                if tracing::enabled!(tracing::Level::DEBUG) {
                    tracing::debug!(
                        parts = mib_parts(&prepared.resolver.table_bytes()),
                        "resolver tables (MiB)"
                    );
                }
                let Prepared {
                    mut resolver,
                    head,
                    done,
                    node_file,
                    error,
                } = prepared;
                let mut head = head.into_head(&spill_dir, &done, &node_file);
                page_out_import_tables(&mut resolver, &spill_dir);
                for (b, refs) in asked {
                    resolve::trace::mark(2 + b as u64);
                    resolver.load_import_tables(&all_files[batches[b].clone()]);
                    let rows = pool.install(|| {
                        let runs: Vec<RowRun> = refs
                            .par_iter()
                            .filter(|r| !is_clause(r))
                            .fold(RowRun::default, |mut run, r| {
                                run.push(resolve_guarded(&resolver, r), r.file, &node_file);
                                run
                            })
                            .collect();
                        batch_rows(|f| head.take(f), runs, &all_files[batches[b].clone()])
                    });
                    resolver.forget_pages();
                    free_behind(refs);
                    if answer.send((b, rows)).is_err() {
                        break;
                    }
                }
                tracing::debug!(seconds = t0.elapsed().as_secs_f64(), "references resolved");
                resolve::trace::finish();
                free_behind((resolver, node_file, done));
                // Rows of no file of this generation (none are expected): written at the
                // end, where they fail as any row of an unknown file does.
                let rest = head.rest();
                match error {
                    Some(e) => Err(Error::Io(e)),
                    None => rest,
                }
            });
            let mut next = 0;
            let mut in_flight = 0;
            let mut resolved = 0u64;
            let batch_refs = |b: usize| -> u64 {
                all_files[batches[b].clone()]
                    .iter()
                    .filter_map(|&f| ranges.get(f).map(|r| r.count))
                    .sum()
            };
            let mut send_next = |builder: &mut sextant_store::GenerationBuilder,
                                 in_flight: &mut usize|
             -> Result<()> {
                if next < batches.len() {
                    let mut refs: Vec<resolve::Ref> = Vec::new();
                    for range in batch_ranges(next) {
                        // A file reused from an earlier generation has its references only in
                        // the store.
                        let spilled = spilled_refs.as_ref().and_then(|s| {
                            s.refs_of(range.file_id)
                                .inspect_err(|e| {
                                    tracing::warn!("references read back from the store: {e}")
                                })
                                .ok()
                                .flatten()
                        });
                        match spilled {
                            Some(spilled) => refs.extend(spilled),
                            None => refs
                                .extend(builder.read_refs(&[range])?.into_iter().map(resolve_ref)),
                        }
                    }
                    // A send fails only when the resolution thread is gone (it panicked): the
                    // join below says why.
                    let _ = ask.send((next, refs));
                    next += 1;
                    *in_flight += 1;
                }
                Ok(())
            };
            // The first batches are read before the file indexes are built, so that their
            // resolution overlaps with the build.
            for _ in 0..IN_FLIGHT {
                send_next(&mut builder, &mut in_flight)?;
            }
            builder.build_file_indexes()?;
            tracing::debug!(seconds = t0.elapsed().as_secs_f64(), "file indexes built");
            // The file tables are complete: their pages go to the database while resolution
            // and the edge writes go on.
            builder.checkpoint_behind();
            while in_flight > 0 {
                options.check_cancel()?;
                let Ok((b, rows)) = answers.recv() else {
                    break;
                };
                in_flight -= 1;
                send_next(&mut builder, &mut in_flight)?;
                resolved += batch_refs(b);
                progress(Progress::Resolving {
                    done: resolved,
                    total: summary.references,
                });
                write_rows(
                    &mut builder,
                    rows,
                    &all_files[batches[b].clone()],
                    &mut sets,
                    &mut counts,
                )?;
            }
            drop(ask);
            let leftover = resolution
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
            tracing::debug!(seconds = t0.elapsed().as_secs_f64(), "rows written");
            Ok(leftover)
        })?;
        for chunk in leftover.edges.chunks(50_000) {
            builder.write_resolution(chunk, &[])?;
        }
        if !leftover.unresolved.is_empty() {
            builder.write_resolution(&[], &leftover.unresolved)?;
        }
        mark("resolve", &mut phases);
        (counts.edges, counts.unresolved)
    } else {
        // With a SCIP index the whole output is kept: the merge below needs it.
        let pool = &pool;
        let ((prepared, r_refs), indexes) = std::thread::scope(|scope| {
            let t0 = Instant::now();
            let resolution = scope.spawn(move || {
                // With a SCIP index nothing is streamed: the imports were in memory.
                let Prepared {
                    resolver,
                    head,
                    done: _,
                    node_file,
                    error: _,
                } = tables(&mut r_refs, None);
                let mut head = head.into_output();
                let resolver_ref = &resolver;
                let runs: Vec<resolve::Output> = pool.install(|| {
                    r_refs
                        .par_iter()
                        .filter(|r| !is_clause(r))
                        .fold(resolve::Output::default, |mut run, r| {
                            resolve::push(&mut run, resolve_guarded(resolver_ref, r));
                            run
                        })
                        .collect()
                });
                free_behind(resolver);
                for run in runs {
                    head.edges.extend(run.edges);
                    head.unresolved.extend(run.unresolved);
                }
                tracing::debug!(seconds = t0.elapsed().as_secs_f64(), "resolution done");
                ((head, node_file), r_refs)
            });
            let indexes = builder.build_file_indexes();
            builder.checkpoint_behind();
            let resolved = resolution
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (resolved, indexes)
        });
        indexes?;
        let (mut output, node_file) = prepared;
        mark("resolve", &mut phases);
        if let Some(index) = &scip_index {
            let generation = builder.generation;
            summary.scip = Some(crate::scip_merge::merge(
                builder.store(),
                generation,
                index,
                &mut output,
            )?);
            mark("scip", &mut phases);
        }
        let rows = pool.install(|| ResolvedRows::of(&output, &node_file, &r_refs, &all_files));
        drop((output, node_file, r_refs));
        options.check_cancel()?;
        progress(Progress::Writing);
        let mut counts = Counts::default();
        write_rows(&mut builder, rows, &all_files, &mut sets, &mut counts)?;
        (counts.edges, counts.unresolved)
    };
    summary.sets_shared = sets.shared;
    let mut counted_edges = edge_counts;
    // The resolution's rows go to the database while their indexes are built.
    builder.checkpoint_behind();
    let mut skipped: Vec<(String, &'static str, u64)> = walk_skipped
        .iter()
        .map(|s| (s.path.as_str().to_string(), s.reason.as_str(), s.size))
        .collect();
    skipped.extend(skipped_at_read);
    builder.write_skipped(&skipped)?;
    mark("write", &mut phases);

    // Summary.
    counted_edges.insert("contains/asserted".into(), summary.symbols);
    let edge_counts = counted_edges;
    let mut skip_counts: FxHashMap<String, u64> = FxHashMap::default();
    for (_, reason, _) in &skipped {
        *skip_counts.entry(reason.to_string()).or_default() += 1;
    }
    summary.edges = sorted(edge_counts);
    summary.unresolved = sorted(unresolved_counts);
    summary.skipped = sorted(skip_counts);
    summary.languages = sorted(languages);
    summary.dirty = summary.files_uncommitted > 0;
    summary.wall_seconds = started.elapsed().as_secs_f64();

    options.check_cancel()?;
    progress(Progress::Publishing);
    builder.finish_bulk()?;
    mark("build_indexes", &mut phases);
    let json = summary_json(&summary);
    let generation = builder.publish(&json)?;
    if summary.dirty {
        store.mark_dirty(generation)?;
    }
    store.collect_garbage(2)?;
    save_stat_cache(&mut store, stat_rows, &stat_forget);
    mark("publish", &mut phases);
    push(&mut cache, &store, generation, &summary, &mut phases);
    summary.cache = cache;
    summary.generation = generation;
    summary.phases = phases;
    summary.wall_seconds = started.elapsed().as_secs_f64();
    summary.db_bytes = store.size_bytes();
    store.set_generation_stats(generation, &summary_json(&summary))?;
    Ok(summary)
}

/// What a run needs from the store before reading files.
struct StoredState {
    active: i64,
    /// Every file version of the published generations, each once, by path: a pulled
    /// generation's preferred, then the active one's, then the others' (newest first). Marked:
    /// those of the newest clean published generation of HEAD's commit, if any (their blob ids
    /// are HEAD's).
    versions: StoredVersions,
    /// The stat cache: path -> (stat when hashed, blob id, clock of the run that hashed it).
    stat_cache: StatCache,
}

fn stored_state(
    store: &Store,
    dir: &Path,
    pulled: Option<i64>,
    head_commit: Option<&str>,
) -> Result<StoredState> {
    let active = store.active_generation_id()?;
    let all_generations = store.generations()?;
    let head_baseline = all_generations
        .iter()
        .find(|g| {
            g.status == "published"
                && !g.dirty
                && g.commit.is_some()
                && g.commit.as_deref() == head_commit
        })
        .map(|g| g.id);
    let mut generations: Vec<i64> = pulled.into_iter().chain([active]).collect();
    generations.retain(|&g| g != 0);
    let rest: Vec<i64> = all_generations
        .iter()
        .filter(|g| g.status == "published" && !generations.contains(&g.id))
        .map(|g| g.id)
        .collect();
    generations.extend(rest);
    let versions = StoredVersions::collect(dir, |each| {
        store.each_version_of_generations(&generations, head_baseline, each)
    })?;
    let stat_cache = StatCache::collect(dir, |each| store.each_stat_row(each))?;
    Ok(StoredState {
        active,
        versions,
        stat_cache,
    })
}

/// A stat cache row: `path` seen as `stat` had content `hash` when a run that started at `clock`
/// read it.
fn stat_row(
    path: &str,
    stat: &sextant_vfs::FileStat,
    hash: &str,
    clock: i64,
) -> sextant_store::StatRow {
    sextant_store::StatRow {
        path: path.to_string(),
        size: stat.size,
        mtime_ns: stat.mtime_ns,
        ctime_ns: stat.ctime_ns,
        ino: stat.ino,
        dev: stat.dev,
        hash: hash.to_string(),
        verified_ns: clock,
    }
}

/// Records what a run hashed in the stat cache (after publishing: the cache is advisory, so a
/// failure here is logged, never failing the run).
fn save_stat_cache(store: &mut Store, rows: crate::stat_rows::StatRows, forget: &[String]) {
    if let Err(e) = store.update_stat_cache(rows.into_rows(), forget) {
        tracing::warn!(error = %e, "could not update the stat cache");
    }
}

/// Pushes a clean published generation to the baseline cache (never failing the run).
fn push(
    cache: &mut Option<crate::cache::CacheReport>,
    store: &Store,
    generation: i64,
    summary: &IndexSummary,
    phases: &mut Vec<(String, f64)>,
) {
    if let (Some(report), Some(commit)) = (cache.as_mut(), summary.commit.as_deref())
        && !summary.dirty
    {
        crate::cache::push_after_run(report, store, generation, commit);
        if report.pushed.is_some() {
            phases.push(("push".into(), report.push_seconds));
        }
    }
}

/// Drops `value` on a thread of its own: freeing the resolver's tables or a million references
/// takes tens of milliseconds, which the work that follows need not wait for.
fn free_behind<T: Send + 'static>(value: T) {
    if let Err(e) = std::thread::Builder::new()
        .name("sextant-free".into())
        .spawn(move || drop(value))
    {
        tracing::debug!("no thread to free on ({e}): freed in place");
    }
}

/// The file of every node, as runs of consecutive ids: a file's nodes get consecutive ids
/// (`file_rows`), so this holds a run or two per file, not an entry per node (a map of the
/// 330k definitions of 73 MB of source took 9 MiB). The runs are records of a temporary file
/// mapped into memory when one was given ([`NodeFiles::in_dir`]; 24 bytes a run, 0.43 MB of
/// the heap through resolution on 162 MB of source before).
#[derive(Default)]
struct NodeFiles {
    /// (first id, last id, file) as words, by first id; no two overlap.
    runs: crate::spill::Records<3>,
}

impl NodeFiles {
    /// From (node, file) pairs, each node once, on the heap.
    fn new(pairs: impl IntoIterator<Item = (i64, i64)>) -> NodeFiles {
        Self::build(crate::spill::Records::default(), pairs).expect("records on the heap do no I/O")
    }

    /// From (node, file) pairs, each node once, in a temporary file in `dir`.
    fn in_dir(dir: &Path, pairs: impl IntoIterator<Item = (i64, i64)>) -> std::io::Result<Self> {
        Self::build(crate::spill::Records::in_dir(dir)?, pairs)
    }

    fn build(
        mut runs: crate::spill::Records<3>,
        pairs: impl IntoIterator<Item = (i64, i64)>,
    ) -> std::io::Result<NodeFiles> {
        let word = |id: i64| id as u64;
        // Consecutive ids of one file as they come, then neighbouring runs once sorted.
        let mut open: Option<(i64, i64, i64)> = None;
        for (id, file) in pairs {
            match &mut open {
                Some(run) if run.2 == file && run.1.checked_add(1) == Some(id) => run.1 = id,
                _ => {
                    if let Some((first, last, file)) = open.replace((id, id, file)) {
                        runs.push([word(first), word(last), word(file)])?;
                    }
                }
            }
        }
        if let Some((first, last, file)) = open {
            runs.push([word(first), word(last), word(file)])?;
        }
        runs.sort_by_key(|r| r[0] as i64)?;
        runs.coalesce(|run, next| {
            let follows =
                run[2] == next[2] && (run[1] as i64).checked_add(1) == Some(next[0] as i64);
            if follows {
                run[1] = next[1];
            }
            follows
        });
        Ok(NodeFiles { runs })
    }

    fn get(&self, node: i64) -> Option<i64> {
        let runs = self.runs.records();
        let at = runs
            .partition_point(|r| r[0] as i64 <= node)
            .checked_sub(1)?;
        let [_, last, file] = runs[at];
        (node <= last as i64).then_some(file as i64)
    }
}

/// The rows one worker made from its run of references, in order.
#[derive(Default)]
struct RowRun {
    edges: Vec<EdgeRow>,
    unresolved: Vec<UnresolvedRow>,
}

impl RowRun {
    /// Adds the rows of one reference of `file`.
    fn push(&mut self, resolution: resolve::Resolution, file: i64, node_file: &NodeFiles) {
        match resolution {
            resolve::Resolution::Edges(edges) => self
                .edges
                .extend(edges.iter().map(|e| edge_row(e, node_file))),
            resolve::Resolution::Unresolved(u) => self.unresolved.push(unresolved_row(&u, file)),
        }
    }
}

/// An edge's row: its set is that of its source's file.
fn edge_row(e: &resolve::Edge, node_file: &NodeFiles) -> EdgeRow {
    EdgeRow {
        file_id: node_file.get(e.src).unwrap_or_default(),
        src: e.src,
        dst: e.dst,
        kind: e.kind,
        provenance: e.provenance,
        confidence: e.confidence,
        rule: e.rule,
        ref_id: e.ref_id,
        import_id: e.import_id,
    }
}

/// What a run writes of its resolution: the edge and unresolved rows (unresolved ones in key
/// order, so they append to the table's B-tree), each file's edge-set fingerprint in the order of
/// `all_files`, and the summary's counts.
struct ResolvedRows {
    /// The edge rows in runs (in order): a resolution's runs are kept as they were made
    /// rather than copied into one vector.
    edges: Vec<Vec<EdgeRow>>,
    unresolved: Vec<UnresolvedRow>,
    hashes: Vec<i64>,
    edge_counts: FxHashMap<String, u64>,
    unresolved_counts: FxHashMap<String, u64>,
}

impl ResolvedRows {
    /// The rows of a resolution's output (the references' files from `refs`).
    fn of(
        output: &resolve::Output,
        node_file: &NodeFiles,
        refs: &[resolve::Ref],
        all_files: &[i64],
    ) -> Self {
        let ref_file: FxHashMap<i64, i64> = refs.iter().map(|r| (r.id, r.file)).collect();
        let edges: Vec<EdgeRow> = output
            .edges
            .iter()
            .map(|e| edge_row(e, node_file))
            .collect();
        let unresolved: Vec<UnresolvedRow> = output
            .unresolved
            .iter()
            .map(|u| unresolved_row(u, ref_file.get(&u.ref_id).copied().unwrap_or_default()))
            .collect();
        Self::finish(vec![edges], unresolved, all_files)
    }

    /// Counts, fingerprints each file's set (one file's keys at a time) and puts the unresolved
    /// rows in key order.
    fn finish(
        edges: Vec<Vec<EdgeRow>>,
        mut unresolved: Vec<UnresolvedRow>,
        all_files: &[i64],
    ) -> Self {
        let mut by_kind: FxHashMap<(sextant_model::EdgeKind, sextant_model::Provenance), u64> =
            FxHashMap::default();
        for e in edges.iter().flatten() {
            *by_kind.entry((e.kind, e.provenance)).or_default() += 1;
        }
        let mut unresolved_counts: FxHashMap<String, u64> = FxHashMap::default();
        for u in &unresolved {
            *unresolved_counts.entry(u.reason.to_string()).or_default() += 1;
        }
        let slot: FxHashMap<i64, usize> =
            all_files.iter().enumerate().map(|(i, &f)| (f, i)).collect();
        let edge_buckets = Buckets::of(
            edges.iter().flatten().map(|e| e.file_id),
            &slot,
            all_files.len(),
        );
        // Where each run starts in the rows' order, to find a row by its index.
        let run_starts: Vec<usize> = edges
            .iter()
            .scan(0, |at, run| {
                let start = *at;
                *at += run.len();
                Some(start)
            })
            .collect();
        let edge_at = |i: usize| {
            let run = run_starts.partition_point(|&start| start <= i) - 1;
            &edges[run][i - run_starts[run]]
        };
        let unresolved_buckets =
            Buckets::of(unresolved.iter().map(|u| u.file_id), &slot, all_files.len());
        let hashes: Vec<i64> = (0..all_files.len())
            .into_par_iter()
            .map_init(
                || (Vec::new(), Vec::new()),
                |(e, u): &mut (Vec<EdgeKey>, Vec<UnresolvedKey>), file| {
                    e.clear();
                    e.extend(edge_buckets.rows(file).map(|i| edge_key(edge_at(i))));
                    u.clear();
                    u.extend(unresolved_buckets.rows(file).map(|i| {
                        let x = &unresolved[i];
                        (x.ref_id, x.reason, x.candidates)
                    }));
                    set_hash(e, u)
                },
            )
            .collect();
        unresolved.sort_unstable_by_key(|u| u.ref_id);
        let edge_counts = by_kind
            .into_iter()
            .map(|((kind, provenance), n)| {
                (format!("{}/{}", kind.as_str(), provenance.as_str()), n)
            })
            .collect();
        ResolvedRows {
            edges,
            unresolved,
            hashes,
            edge_counts,
            unresolved_counts,
        }
    }
}

/// References resolved per batch in a first index's streaming resolution: about this many
/// (whole files) are read from the store, resolved and written at a time. The batches in
/// flight, their references and rows, are what the resolution adds to the tables: 16k rather
/// than 64k lowered the peak RSS 20 MiB on Django and 26 on 73 MB of source, wall time the
/// same (8k: the same again).
const REF_BATCH: u64 = 1 << 14;
/// Batches read ahead of the writer: the first ones are resolved while the file indexes are
/// built, and the pool resolves the next one while the writer writes.
const IN_FLIGHT: usize = 3;

/// What every reference's resolution reads, built once the read phase is over: the resolver's
/// tables, and the results that come before the references' (imports, inheritance clauses,
/// overrides).
struct Prepared {
    resolver: resolve::Resolver,
    head: HeadOut,
    /// The files of the inheritance clauses resolved in `head`, when it keeps its results in
    /// memory (they become rows by file later); empty when they were written away as made.
    /// Every clause is resolved there: the passes after it skip them by kind ([`is_clause`]).
    done: FxHashMap<i64, i64>,
    /// The file of every node: each edge belongs to the edge set of its source's file.
    node_file: NodeFiles,
    /// The first failure to read the imports or the inheritance clauses back from disk (the
    /// index fails with it), saying which.
    error: Option<String>,
}

/// What the resolver's tables are built from ([`prepare_resolver`]).
struct TableInputs {
    /// In path order.
    files: resolve::Files,
    /// The inheritance clauses, when they wait on disk (else they are the `refs` given).
    clauses: Option<crate::spill::SpilledRefs>,
    symbols: resolve::Symbols,
    imports: Imports,
    bindings: resolve::Bindings,
    /// The typed bindings of plain names, by file, when they wait on disk.
    pages: Option<Box<dyn resolve::BindingSource>>,
    rules: Vec<resolve::LangRules>,
    npm_packages: NpmPackages,
}

/// A generation's imports: in memory, or on disk in path order ([`crate::spill::ImportPieces`]).
enum Imports {
    Memory(Vec<resolve::Imp>),
    Disk(crate::spill::SpilledImports),
}

/// Builds the resolver from files in path order and resolves what comes before the references:
/// imports, out-of-line members, the inheritance clauses among `refs` (sorted here, with the
/// symbols, imports and bindings, in path order then id or source order), overrides. Their
/// results are written to a temporary file in `head_dir` as they are made, when it is given.
fn prepare_resolver(
    inputs: TableInputs,
    refs: &mut [resolve::Ref],
    head_dir: Option<&Path>,
) -> Prepared {
    let TableInputs {
        files,
        clauses,
        mut symbols,
        imports,
        mut bindings,
        pages,
        rules,
        npm_packages,
    } = inputs;
    let t_step = std::cell::Cell::new(Instant::now());
    let step = |name: &str| {
        tracing::debug!(
            step = name,
            seconds = t_step.get().elapsed().as_secs_f64(),
            "resolution step"
        );
        t_step.set(Instant::now());
    };
    let rank: FxHashMap<i64, usize> = files.iter().enumerate().map(|(i, f)| (f.id, i)).collect();
    // The files in path order, for the clauses on disk (read back a file at a time).
    let order: Vec<i64> = match &clauses {
        Some(_) => files.iter().map(|f| f.id).collect(),
        None => Vec::new(),
    };
    let rank_of = |file: i64| rank.get(&file).copied().unwrap_or(usize::MAX);
    // Mapped definitions were laid out in this order (`SymbolSpill::finish`).
    if !symbols.is_mapped() {
        symbols.sort_by_key(|file, id| (rank_of(file), id));
    }
    refs.sort_by_cached_key(|r| (rank_of(r.file), r.id));
    // Bindings have no id: a stable sort keeps each file's in source order. An attribute's
    // bindings across files (`self.x = ...`) are then tried in path order, as the live index
    // tries them, whatever order the files arrived in.
    bindings.sort_by_file(rank_of);
    let pairs = || {
        files
            .iter()
            .map(|f| (f.node, f.id))
            .chain((0..symbols.len()).map(|i| symbols.id_file(i)))
    };
    let node_file = match head_dir.map(|dir| NodeFiles::in_dir(dir, pairs())) {
        Some(Ok(node_file)) => node_file,
        Some(Err(e)) => {
            tracing::warn!("the nodes' files kept in memory: {e}");
            NodeFiles::new(pairs())
        }
        None => NodeFiles::new(pairs()),
    };
    step("sorted");
    #[cfg(feature = "access-trace")]
    if let Some(path) = std::env::var_os("SEXTANT_ACCESS_TRACE") {
        match std::fs::File::create(&path) {
            Ok(file) => resolve::trace::set_sink(Box::new(std::io::BufWriter::new(file))),
            Err(e) => tracing::warn!("access trace {}: {e}", path.to_string_lossy()),
        }
    }
    resolve::trace::mark(0);
    // A resolver that is never patched (mapped definitions) reads its name tables, files and
    // families from maps too, each laid out as soon as it is built.
    let resolver = match head_dir {
        Some(dir) if symbols.is_mapped() => {
            let kept = |what: &str, e: &std::io::Error| {
                tracing::warn!("{what} kept in memory ({}: {e})", dir.display());
            };
            resolve::Resolver::frozen(
                files,
                symbols,
                rules,
                resolve::Freeze {
                    words: &mut |n| {
                        crate::mapped::words_out(dir, n).inspect_err(|e| kept("name tables", e))
                    },
                    rows: &mut || {
                        crate::mapped::table_out(dir).inspect_err(|e| kept("files or families", e))
                    },
                },
            )
        }
        _ => resolve::Resolver::new(files, symbols, rules),
    };
    let mut resolver = resolver.with_bindings(bindings).with_packages(npm_packages);
    if let Some(pages) = pages {
        resolver = resolver.with_binding_pages(pages);
    }
    // Building the tables read every mapped definition: their pages go back to the system.
    resolver.forget_pages();
    step("tables");
    resolve::trace::mark(1);
    let mut head = HeadOut::new(head_dir);
    let mut error = None;
    match imports {
        Imports::Memory(mut imports) => {
            imports.sort_by_cached_key(|i| (rank_of(i.file), i.id));
            resolver.resolve_imports_into(&imports.as_slice(), &mut |e| head.edge(e, &node_file));
            free_behind(imports);
        }
        Imports::Disk(imports) => {
            // Streamed: each file's final import table goes to a temporary file as soon as the
            // last pass makes it, and is read back from there when needed.
            let spill = head_dir.map(crate::spill::ImportSpill::new);
            match spill {
                Some(Ok(mut spill)) => {
                    let mut table_error = None;
                    // Beside the tables, the files each one reaches (on the heap when no
                    // temporary file can be made for them).
                    let mut reach = head_dir.and_then(|dir| {
                        crate::spill::ReachSpill::new(dir)
                            .inspect_err(|e| tracing::warn!("import reach kept in memory: {e}"))
                            .ok()
                    });
                    let mut reach_error = None;
                    let handing = reach.is_some();
                    let mut put_reach = |file: i64, reached: &[i64]| {
                        if let Some(reach) = reach.as_mut()
                            && reach_error.is_none()
                            && let Err(e) = reach.put(file, reached)
                        {
                            reach_error = Some(format!("import reach: {e}"));
                        }
                    };
                    // The earlier passes' tables in temporary files too (on the heap when
                    // none can be made).
                    let pass_error = Arc::new(std::sync::Mutex::new(None));
                    let mut passes = || -> Option<Box<dyn resolve::PassTables>> {
                        let dir = head_dir?;
                        crate::spill::PassSpill::new(dir, pass_error.clone())
                            .inspect_err(|e| {
                                tracing::warn!("import tables of a pass kept in memory: {e}")
                            })
                            .ok()
                            .map(|s| Box::new(s) as Box<dyn resolve::PassTables>)
                    };
                    let paged = resolver.resolve_imports_paged(
                        &imports,
                        &mut |e| head.edge(e, &node_file),
                        &mut |file, bytes| {
                            if table_error.is_none()
                                && let Err(e) = spill.put(file, bytes)
                            {
                                table_error = Some(format!("import tables: {e}"));
                            }
                        },
                        handing.then_some(&mut put_reach as resolve::ReachOut<'_>),
                        Some(&mut passes),
                    );
                    let pass_error = pass_error.lock().unwrap_or_else(|e| e.into_inner()).take();
                    table_error = table_error.or(reach_error).or(pass_error);
                    if paged {
                        match spill.finish() {
                            Ok(source) => resolver.with_import_tables_from(source),
                            Err(e) => {
                                table_error.get_or_insert(format!("import tables: {e}"));
                            }
                        }
                        if let Some(reach) = reach {
                            match reach.finish() {
                                Ok(source) => resolver.with_reach_from(Box::new(source)),
                                Err(e) => {
                                    table_error.get_or_insert(format!("import reach: {e}"));
                                }
                            }
                        }
                    }
                    error = imports
                        .error()
                        .map(|e| format!("imports: {e}"))
                        .or(table_error);
                }
                other => {
                    if let Some(Err(e)) = other {
                        tracing::warn!("import tables kept in memory: {e}");
                    }
                    resolver.resolve_imports_into(&imports, &mut |e| head.edge(e, &node_file));
                    error = imports.error().map(|e| format!("imports: {e}"));
                }
            }
        }
    }
    step("imports");
    resolver.link_out_of_line_members();
    let clause_file: FxHashMap<i64, i64> = refs
        .iter()
        .filter(|r| is_clause(r))
        .map(|r| (r.id, r.file))
        .collect();
    let mut done = FxHashMap::default();
    let keep_files = matches!(head, HeadOut::Memory(_));
    let mut record = |resolved: Vec<(i64, resolve::Resolution)>, file_of: &dyn Fn(i64) -> i64| {
        for (id, r) in resolved {
            let file = file_of(id);
            if keep_files {
                done.insert(id, file);
            }
            match r {
                resolve::Resolution::Edges(edges) => {
                    edges.into_iter().for_each(|e| head.edge(e, &node_file))
                }
                resolve::Resolution::Unresolved(u) => head.unresolved(u, file),
            }
        }
    };
    record(resolver.resolve_inheritance(refs), &|id| {
        clause_file.get(&id).copied().unwrap_or_default()
    });
    drop(clause_file);
    if let Some(clauses) = clauses {
        // A file at a time, in path order (as the sort above orders them), then the clauses of
        // files not listed (none are expected) in id order.
        let listed: rustc_hash::FxHashSet<i64> = order.iter().copied().collect();
        let unlisted: Vec<i64> = clauses
            .files()
            .into_iter()
            .filter(|f| !listed.contains(f))
            .collect();
        drop(listed);
        let mut rest = Vec::new();
        for (i, &file) in order.iter().chain(&unlisted).enumerate() {
            let mut refs = match clauses.refs_of(file) {
                Ok(refs) => refs.unwrap_or_default(),
                Err(e) => {
                    error.get_or_insert(format!("inheritance clauses: {e}"));
                    continue;
                }
            };
            if i >= order.len() {
                rest.append(&mut refs);
                continue;
            }
            refs.sort_by_key(|r| r.id);
            record(resolver.resolve_inheritance(&refs), &|_| file);
        }
        rest.sort_by_key(|r| r.id);
        let rest_file: FxHashMap<i64, i64> = rest.iter().map(|r| (r.id, r.file)).collect();
        record(resolver.resolve_inheritance(&rest), &|id| {
            rest_file.get(&id).copied().unwrap_or_default()
        });
    }
    resolver.hierarchy_complete();
    step("inheritance");
    for e in resolver.overrides() {
        head.edge(e, &node_file);
    }
    resolver.forget_pages();
    step("overrides");
    Prepared {
        resolver,
        head,
        done,
        node_file,
        error,
    }
}

/// Whether `r` is an inheritance or implementation clause: resolved before the other references
/// (`prepare_resolver`), every one of them.
fn is_clause(r: &resolve::Ref) -> bool {
    matches!(r.kind, RefKind::Inherit | RefKind::Implement)
}

/// `parts` in MiB, with their total first: "total 62.2: symbols 28, norms 4.6, ...".
fn mib_parts(parts: &[(&str, usize)]) -> String {
    let mib = |b: usize| (b as f64 / 1048576.0 * 10.0).round() / 10.0;
    let total: usize = parts.iter().map(|(_, b)| b).sum();
    let each: Vec<String> = parts
        .iter()
        .map(|(n, b)| format!("{n} {}", mib(*b)))
        .collect();
    format!("total {}: {}", mib(total), each.join(", "))
}

/// Moves a paged resolver's import tables to a temporary file in `dir` (`spill.rs`): a batch
/// loads its files'. They stay in memory when the file cannot be written.
fn page_out_import_tables(resolver: &mut resolve::Resolver, dir: &Path) {
    let paged = crate::spill::ImportSpill::new(dir).and_then(|mut spill| {
        let out = resolver.page_out_import_tables(&mut |f, bytes| spill.put(f, bytes))?;
        Ok(out.then_some(spill.finish()?))
    });
    match paged {
        Ok(Some(source)) => resolver.with_import_tables_from(source),
        Ok(None) => {}
        Err(e) => tracing::warn!("import tables kept in memory ({}: {e})", dir.display()),
    }
}

/// The rows of the results that come before the references' ([`Prepared::head`]), by file.
fn head_rows(
    head: resolve::Output,
    done: &FxHashMap<i64, i64>,
    node_file: &NodeFiles,
) -> FxHashMap<i64, RowRun> {
    let mut by_file: FxHashMap<i64, RowRun> = FxHashMap::default();
    for e in &head.edges {
        let row = edge_row(e, node_file);
        by_file.entry(row.file_id).or_default().edges.push(row);
    }
    for u in &head.unresolved {
        let row = head_unresolved_row(u, done);
        by_file.entry(row.file_id).or_default().unresolved.push(row);
    }
    by_file
}

/// The row of a reference of file `file_id` that resolved to nothing.
fn unresolved_row(u: &resolve::Unresolved, file_id: i64) -> UnresolvedRow {
    UnresolvedRow {
        file_id,
        ref_id: u.ref_id,
        reason: u.reason,
        candidates: u.candidates,
    }
}

/// The row of an inheritance clause that resolved to nothing (its file from `done`).
fn head_unresolved_row(u: &resolve::Unresolved, done: &FxHashMap<i64, i64>) -> UnresolvedRow {
    unresolved_row(u, done.get(&u.ref_id).copied().unwrap_or_default())
}

/// The results that come before the references' ([`Prepared::head`]) as they are made:
/// written away as rows when a directory for temporary files was given (a streamed index:
/// 131k edges on 73 MB of source), else kept.
enum HeadOut {
    Memory(resolve::Output),
    /// The writer, and the first failure to write (the index fails with it).
    Disk(crate::spill::HeadWriter, Option<String>),
}

impl HeadOut {
    fn new(dir: Option<&Path>) -> HeadOut {
        let Some(dir) = dir else {
            return HeadOut::Memory(resolve::Output::default());
        };
        match crate::spill::HeadWriter::new(dir) {
            Ok(w) => HeadOut::Disk(w, None),
            Err(e) => {
                tracing::warn!("head rows kept in memory ({}: {e})", dir.display());
                HeadOut::Memory(resolve::Output::default())
            }
        }
    }

    fn edge(&mut self, e: resolve::Edge, node_file: &NodeFiles) {
        match self {
            HeadOut::Memory(out) => out.edges.push(e),
            HeadOut::Disk(w, error @ None) => {
                if let Err(e) = w.edge(&edge_row(&e, node_file)) {
                    *error = Some(e.to_string());
                }
            }
            HeadOut::Disk(_, Some(_)) => {}
        }
    }

    /// An inheritance clause of `file` that resolved to nothing.
    fn unresolved(&mut self, u: resolve::Unresolved, file: i64) {
        match self {
            HeadOut::Memory(out) => out.unresolved.push(u),
            HeadOut::Disk(w, error @ None) => {
                if let Err(e) = w.unresolved(&unresolved_row(&u, file)) {
                    *error = Some(e.to_string());
                }
            }
            HeadOut::Disk(_, Some(_)) => {}
        }
    }

    /// The rows by file until their files' batches take them.
    fn into_head(self, dir: &Path, done: &FxHashMap<i64, i64>, node_file: &NodeFiles) -> Head {
        match self {
            HeadOut::Memory(out) => Head::new(dir, out, done, node_file),
            HeadOut::Disk(w, None) => match w.finish() {
                Ok(rows) => Head::Disk(rows),
                Err(e) => Head::Failed(e.to_string()),
            },
            HeadOut::Disk(_, Some(e)) => Head::Failed(e),
        }
    }

    /// The results themselves (a head made without a directory).
    fn into_output(self) -> resolve::Output {
        match self {
            HeadOut::Memory(out) => out,
            HeadOut::Disk(..) => unreachable!("a head written to disk is read back by file"),
        }
    }
}

/// The head rows ([`head_rows`]) until their files' batches take them: on disk
/// (`spill::HeadRows`), or in memory when no temporary file could be made.
enum Head {
    Disk(crate::spill::HeadRows),
    Memory(FxHashMap<i64, RowRun>),
    /// The rows could not be written: the index fails with this once the batches are done.
    Failed(String),
}

impl Head {
    fn new(
        dir: &Path,
        head: resolve::Output,
        done: &FxHashMap<i64, i64>,
        node_file: &NodeFiles,
    ) -> Head {
        let written = crate::spill::HeadRows::write(
            dir,
            head.edges.iter().map(|e| edge_row(e, node_file)),
            head.unresolved.iter().map(|u| head_unresolved_row(u, done)),
        );
        match written {
            Ok(rows) => Head::Disk(rows),
            Err(e) => {
                tracing::warn!("head rows kept in memory ({}: {e})", dir.display());
                Head::Memory(head_rows(head, done, node_file))
            }
        }
    }

    /// Takes the rows of `file`.
    fn take(&mut self, file: i64) -> Option<RowRun> {
        match self {
            Head::Disk(rows) => rows
                .take(file)
                .map(|(edges, unresolved)| RowRun { edges, unresolved }),
            Head::Memory(map) => map.remove(&file),
            Head::Failed(_) => None,
        }
    }

    /// The rows no batch took (none are expected), or the first failure to read rows back.
    fn rest(mut self) -> Result<RowRun> {
        let files: Vec<i64> = match &self {
            Head::Disk(rows) => rows.files(),
            Head::Memory(map) => {
                let mut files: Vec<i64> = map.keys().copied().collect();
                files.sort_unstable();
                files
            }
            Head::Failed(e) => return Err(Error::Io(format!("head rows: {e}"))),
        };
        let mut rest = RowRun::default();
        for f in files {
            if let Some(run) = self.take(f) {
                rest.edges.extend(run.edges);
                rest.unresolved.extend(run.unresolved);
            }
        }
        if let Head::Disk(rows) = &self
            && let Some(e) = &rows.error
        {
            return Err(Error::Io(format!("head rows: {e}")));
        }
        Ok(rest)
    }
}

/// The rows of one batch of `files`: their rows in `head` (taken out of it), then `runs`, the
/// rows of their references in order. A reference's edges start at its enclosing definition,
/// in its own file, so each file's fingerprint is complete once its batch is.
fn batch_rows(
    mut head: impl FnMut(i64) -> Option<RowRun>,
    runs: Vec<RowRun>,
    files: &[i64],
) -> ResolvedRows {
    let mut edges: Vec<Vec<EdgeRow>> = Vec::with_capacity(runs.len() + 1);
    let mut first = Vec::new();
    let mut unresolved = Vec::new();
    for file in files {
        if let Some(run) = head(*file) {
            first.extend(run.edges);
            unresolved.extend(run.unresolved);
        }
    }
    edges.push(first);
    for run in runs {
        edges.push(run.edges);
        unresolved.extend(run.unresolved);
    }
    ResolvedRows::finish(edges, unresolved, files)
}

/// Where each file's references are in the store: a record of four words a file (file, first
/// and last id, count), by file id once sorted ([`FileRanges::sort`]). On the heap they were
/// 1 MiB on s4's 17,863 files through its read phase (as a map, about 50 bytes a file); in a
/// temporary file ([`crate::spill::Records`]) they take none.
#[derive(Default)]
pub(crate) struct FileRanges(crate::spill::Records<4>);

impl FileRanges {
    /// Ranges written to a temporary file in `dir`.
    pub(crate) fn in_dir(dir: &Path) -> std::io::Result<FileRanges> {
        crate::spill::Records::in_dir(dir).map(FileRanges)
    }

    fn push(&mut self, r: &sextant_store::RefRange) -> std::io::Result<()> {
        self.0
            .push([r.file_id as u64, r.first as u64, r.last as u64, r.count])
    }

    fn sort(&mut self) -> std::io::Result<()> {
        self.0.sort_by_key(|r| r[0] as i64)
    }

    /// The range of `file` (after [`FileRanges::sort`]).
    fn get(&self, file: i64) -> Option<sextant_store::RefRange> {
        let range = self.0.range_of(file, |r| r[0] as i64);
        let r = self
            .0
            .records()
            .get(range.start)
            .filter(|_| !range.is_empty())?;
        Some(sextant_store::RefRange {
            file_id: r[0] as i64,
            first: r[1] as i64,
            last: r[2] as i64,
            count: r[3],
        })
    }

    /// The references of every file (after [`FileRanges::sort`]).
    fn total(&self) -> u64 {
        self.0.records().iter().map(|r| r[3]).sum()
    }

    fn heap_bytes(&self) -> usize {
        self.0.heap_bytes()
    }
}

/// Batches of files (ranges of `files`, in order) of about [`REF_BATCH`] references each.
fn ref_batches(files: &[i64], ranges: &FileRanges) -> Vec<std::ops::Range<usize>> {
    let mut batches = Vec::new();
    let mut start = 0;
    let mut n = 0;
    for (i, &file) in files.iter().enumerate() {
        n += ranges.get(file).map_or(0, |r| r.count);
        if n >= REF_BATCH {
            batches.push(start..i + 1);
            start = i + 1;
            n = 0;
        }
    }
    if start < files.len() || batches.is_empty() {
        batches.push(start..files.len());
    }
    batches
}

/// The edge sets a run records: each file's new set with its fingerprint, or the active
/// generation's set when the file's rows came out identical (shared: nothing is written).
/// Recorded as each batch's rows are written, not kept for the end (32 bytes a file).
struct SetRecord<'p> {
    previous: &'p EdgeSets,
    shared: u64,
}

impl<'p> SetRecord<'p> {
    fn new(previous: &'p EdgeSets) -> Self {
        SetRecord {
            previous,
            shared: 0,
        }
    }
}

/// The summary's counts of edges (`kind/provenance`) and unresolved references (by reason).
#[derive(Default)]
struct Counts {
    edges: FxHashMap<String, u64>,
    unresolved: FxHashMap<String, u64>,
}

/// Writes the rows of `files` (the files `rows` fingerprints, in order), except those of a file
/// that shares its set with the active generation; each run is freed once written.
fn write_rows(
    builder: &mut sextant_store::GenerationBuilder,
    rows: ResolvedRows,
    files: &[i64],
    sets: &mut SetRecord,
    counts: &mut Counts,
) -> Result<()> {
    let ResolvedRows {
        edges,
        unresolved,
        hashes,
        edge_counts,
        unresolved_counts,
    } = rows;
    for (key, n) in edge_counts {
        *counts.edges.entry(key).or_default() += n;
    }
    for (key, n) in unresolved_counts {
        *counts.unresolved.entry(key).or_default() += n;
    }
    let mut shared: rustc_hash::FxHashSet<i64> = rustc_hash::FxHashSet::default();
    let mut record: Vec<(i64, i64, Option<i64>)> = Vec::with_capacity(files.len());
    for (&file, &hash) in files.iter().zip(&hashes) {
        match sets.previous.get(file) {
            Some((set, Some(h))) if h == hash => {
                record.push((file, set, Some(hash)));
                shared.insert(file);
            }
            _ => {
                if let Some(set) = builder.edge_set(file) {
                    record.push((file, set, Some(hash)));
                }
            }
        }
    }
    builder.record_sets(&record)?;
    drop(record);
    sets.shared += shared.len() as u64;
    for mut run in edges {
        if !shared.is_empty() {
            run.retain(|e| !shared.contains(&e.file_id));
        }
        for chunk in run.chunks(50_000) {
            builder.write_resolution(chunk, &[])?;
        }
    }
    let mut unresolved = unresolved;
    if !shared.is_empty() {
        unresolved.retain(|u| !shared.contains(&u.file_id));
    }
    for chunk in unresolved.chunks(50_000) {
        builder.write_resolution(&[], chunk)?;
    }
    Ok(())
}

/// Hands `items` (in file order) to `add` a file's at a time.
fn by_file<T, E>(
    items: Vec<T>,
    file: impl Fn(&T) -> i64,
    add: impl FnMut(&[T]) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    items.chunk_by(|a, b| file(a) == file(b)).try_for_each(add)
}

/// A stored import as the resolver takes it.
pub(crate) fn resolve_imp(i: sextant_store::ResolveImport) -> resolve::Imp {
    resolve::Imp {
        id: i.id,
        file: i.file_id,
        src: i.src_id,
        source: i.source,
        name: i.name,
        alias: i.alias,
        wildcard: i.wildcard,
    }
}

/// A stored reference as the resolver takes it.
pub(crate) fn resolve_ref(r: sextant_store::ResolveRef) -> resolve::Ref {
    resolve::Ref {
        id: r.id,
        file: r.file_id,
        src: r.src_id,
        kind: r.kind,
        name: r.name,
        receiver: r.receiver,
        implementor: r.implementor,
    }
}

/// An edge row as its set's fingerprint sees it.
fn edge_key(e: &EdgeRow) -> EdgeKey {
    (
        e.ref_id,
        e.import_id,
        e.src,
        e.dst,
        e.kind,
        e.provenance,
        e.confidence,
        e.rule,
    )
}

/// Row indices grouped by the slot of their file (a stable counting sort): 4 bytes a row
/// instead of a copy of every row's key.
struct Buckets {
    order: Vec<u32>,
    /// `ends[b]`: where bucket `b` ends in `order` (and `b + 1` starts).
    ends: Vec<usize>,
}

impl Buckets {
    /// Rows of a file without a slot go after the `n` buckets, in none of them.
    fn of(files: impl Iterator<Item = i64>, slot: &FxHashMap<i64, usize>, n: usize) -> Self {
        let bucket_of: Vec<u32> = files
            .map(|f| slot.get(&f).copied().unwrap_or(n) as u32)
            .collect();
        let mut next = vec![0usize; n + 1];
        for &b in &bucket_of {
            next[b as usize] += 1;
        }
        let mut at = 0;
        for count in next.iter_mut() {
            let c = *count;
            *count = at;
            at += c;
        }
        let mut order = vec![0u32; bucket_of.len()];
        for (row, &b) in bucket_of.iter().enumerate() {
            order[next[b as usize]] = row as u32;
            next[b as usize] += 1;
        }
        next.truncate(n);
        Buckets { order, ends: next }
    }

    /// The rows of bucket `b`, in order.
    fn rows(&self, b: usize) -> impl Iterator<Item = usize> + '_ {
        let start = if b == 0 { 0 } else { self.ends[b - 1] };
        self.order[start..self.ends[b]].iter().map(|&i| i as usize)
    }
}

/// Resolves one reference; a bug that panics in the resolver costs that reference (kept as
/// unresolved, reason `internal_error`, and logged), not the whole index.
pub(crate) fn resolve_guarded(
    resolver: &resolve::Resolver,
    r: &resolve::Ref,
) -> resolve::Resolution {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| resolver.resolve(r))).unwrap_or_else(
        |_| {
            tracing::error!(reference = r.id, name = %r.name, "the resolver panicked on a reference");
            resolve::Resolution::Unresolved(resolve::Unresolved {
                ref_id: r.id,
                reason: "internal_error",
                candidates: 0,
            })
        },
    )
}

/// An edge as its set's fingerprint sees it (the order sorts like the live index's lists).
pub(crate) type EdgeKey = (
    Option<i64>,
    Option<i64>,
    i64,
    i64,
    sextant_model::EdgeKind,
    sextant_model::Provenance,
    sextant_model::Confidence,
    &'static str,
);
/// An unresolved reference as its set's fingerprint sees it.
pub(crate) type UnresolvedKey = (i64, &'static str, u32);

/// The content fingerprint of one file's edge set (edges and unresolved references, in any order).
pub(crate) fn set_hash(edges: &mut [EdgeKey], unresolved: &mut [UnresolvedKey]) -> i64 {
    use std::hash::{Hash, Hasher};
    edges.sort_unstable();
    unresolved.sort_unstable();
    let mut h = rustc_hash::FxHasher::default();
    edges.hash(&mut h);
    unresolved.hash(&mut h);
    h.finish() as i64
}

/// The fingerprint of what resolution depends on besides the file versions.
pub(crate) fn resolution_context(
    cargo: &CargoPackages,
    npm: &NpmPackages,
    versions: &FxHashMap<String, String>,
) -> String {
    let mut versions: Vec<(&String, &String)> = versions.iter().collect();
    versions.sort();
    let text = format!("{cargo:?}{npm:?}{versions:?}");
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// A published generation with exactly `files` (file version ids) and the same resolution
/// context: (its id, each file's edge set, its stored summary, whether it has uncommitted files).
type SameGeneration = (i64, EdgeSets, serde_json::Value, bool);

fn same_generation(
    store: &Store,
    dir: &Path,
    files: &[(i64, bool)],
    context: &str,
) -> Result<Option<SameGeneration>> {
    let mut wanted: Vec<i64> = files.iter().map(|(id, _)| *id).collect();
    wanted.sort_unstable();
    for g in store.generations()? {
        if g.status != "published" {
            continue;
        }
        let Some(stats) = g
            .stats
            .as_deref()
            .and_then(|s| serde_json::from_str::<serde_json::Value>(s).ok())
        else {
            continue;
        };
        if stats.get("context").and_then(|c| c.as_str()) != Some(context) {
            continue;
        }
        let sets = EdgeSets::collect(dir, |each| store.each_set_hash(g.id, each))?;
        if sets.files().len() != wanted.len() || sets.files().ne(wanted.iter().copied()) {
            continue;
        }
        return Ok(Some((g.id, sets, stats, g.dirty)));
    }
    Ok(None)
}

/// Counts of a generation's stored summary (for a generation that shares its resolution).
fn fill_from_stats(summary: &mut IndexSummary, stats: &serde_json::Value) {
    let n = |k: &str| stats.get(k).and_then(|v| v.as_u64()).unwrap_or(0);
    summary.symbols = n("symbols");
    summary.references = n("references");
    summary.imports = n("imports");
    let counts = |k: &str| -> Vec<(String, u64)> {
        let mut v: Vec<(String, u64)> = stats
            .get(k)
            .and_then(|m| m.as_object())
            .map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0)))
                    .collect()
            })
            .unwrap_or_default();
        v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        v
    };
    summary.edges = counts("edges");
    summary.unresolved = counts("unresolved");
}

/// Cargo packages: (manifest path, package name).
pub(crate) type CargoPackages = Vec<(String, Option<String>)>;
/// npm packages: (name, directory).
pub(crate) type NpmPackages = Vec<(String, String)>;

/// The project manifests a walk found: Cargo packages `(manifest path, package name)` (for Rust
/// module names) and npm packages `(name, directory)` (`import "name/sub"` of the repository's
/// own package resolves inside it).
pub(crate) fn manifests(walk: &sextant_vfs::Walk) -> (CargoPackages, NpmPackages) {
    let cargo: Vec<(String, Option<String>)> = walk
        .manifests
        .iter()
        .filter(|m| m.path.file_name() == "Cargo.toml" && m.size < 1 << 20)
        .map(|m| {
            let name = read_source(&walk.abs(m), 1 << 20, usize::MAX, usize::MAX)
                .ok()
                .and_then(|s| cargo_package_name(&s.text));
            (m.path.as_str().to_string(), name)
        })
        .collect();
    // npm packages of the repository: `import "name/sub"` of its own name resolves inside it.
    let mut npm_packages: Vec<(String, String)> = walk
        .manifests
        .iter()
        .filter(|m| m.path.file_name() == "package.json" && m.size < 1 << 20)
        .filter_map(|m| {
            let text = read_source(&walk.abs(m), 1 << 20, usize::MAX, usize::MAX)
                .ok()?
                .text;
            let name = crate::layout::npm_package_name(&text)?;
            let path = m.path.as_str();
            let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
            Some((name, dir.to_string()))
        })
        .collect();
    // TypeScript `paths` aliases (`"@/*": ["./src/*"]`) resolve the same way: a prefix and the
    // directory it stands for.
    for m in walk.manifests.iter().filter(|m| {
        let name = m.path.file_name();
        name.starts_with("tsconfig") && name.ends_with(".json") && m.size < 1 << 20
    }) {
        if let Ok(source) = read_source(&walk.abs(m), 1 << 20, usize::MAX, usize::MAX) {
            let path = m.path.as_str();
            let dir = path.rsplit_once('/').map_or("", |(d, _)| d);
            for alias in crate::layout::tsconfig_aliases(&source.text, dir) {
                if !npm_packages.contains(&alias) {
                    npm_packages.push(alias);
                }
            }
        }
    }
    (cargo, npm_packages)
}

fn sorted(map: FxHashMap<String, u64>) -> Vec<(String, u64)> {
    let mut v: Vec<(String, u64)> = map.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    v
}

use sextant_store::FileBatch;

/// What the resolver takes, gathered as files arrive.
#[derive(Default)]
pub(crate) struct ResolverInputs {
    pub(crate) files: Vec<resolve::FileCtx>,
    /// When streamed, the files go to a temporary file as they come, to be mapped in path order
    /// for the resolver (`mapped.rs`); `files` stays empty.
    pub(crate) file_spill: Option<resolve::FilesOut>,
    pub(crate) symbols: resolve::Symbols,
    pub(crate) refs: Vec<resolve::Ref>,
    pub(crate) imports: Vec<resolve::Imp>,
    pub(crate) bindings: resolve::Bindings,
    /// References stay in the store: `refs` keeps only the inheritance clauses (resolved before
    /// the others) and `ref_ranges` where each file's references are.
    pub(crate) streamed: bool,
    pub(crate) ref_ranges: FileRanges,
    /// When streamed, every file's references also go to a temporary file, for resolution to
    /// read back from there instead of from the store (`spill.rs`).
    pub(crate) ref_pieces: Option<crate::spill::RefPieces>,
    /// When streamed, the inheritance clauses go to a temporary file too (`refs` stays empty),
    /// read back a file at a time by the inheritance pass: 3.5 MiB on 73 MB of source, held from
    /// the read phase to the end of that pass.
    pub(crate) clause_pieces: Option<crate::spill::RefPieces>,
    /// When streamed, the plain names' bindings go to pages on disk (`spill.rs`); `bindings`
    /// holds the others.
    pub(crate) spill: Option<crate::spill::BindingSpill>,
    /// When streamed, the definitions go to a temporary file, to be mapped for the resolver
    /// (`spill.rs`, `mapped.rs`); `symbols` stays empty.
    pub(crate) symbol_spill: Option<crate::spill::SymbolSpill>,
    /// When streamed, the imports go to a temporary file too, read back by the import passes;
    /// `imports` stays empty.
    pub(crate) import_pieces: Option<crate::spill::ImportPieces>,
    /// The first failure to write a page (the index fails with it).
    pub(crate) spill_error: Option<String>,
}

impl ResolverInputs {
    /// About the heap bytes held, by part (for the debug log once the read phase is over).
    pub(crate) fn heap_bytes(&self) -> Vec<(&'static str, usize)> {
        use std::mem::size_of;
        let text = |s: &String| s.capacity();
        let opt = |s: &Option<String>| s.as_ref().map_or(0, String::capacity);
        let refs = |v: &[resolve::Ref]| -> usize {
            v.iter()
                .map(|r| text(&r.name) + opt(&r.receiver) + opt(&r.implementor))
                .sum::<usize>()
        };
        vec![
            (
                "files",
                self.files.capacity() * size_of::<resolve::FileCtx>()
                    + self
                        .files
                        .iter()
                        .map(|f| text(&f.path) + text(&f.module))
                        .sum::<usize>(),
            ),
            ("symbols", self.symbols.heap_bytes()),
            (
                "clauses",
                self.refs.capacity() * size_of::<resolve::Ref>() + refs(&self.refs),
            ),
            (
                "imports",
                self.imports.capacity() * size_of::<resolve::Imp>()
                    + self
                        .imports
                        .iter()
                        .map(|i| text(&i.source) + opt(&i.name) + opt(&i.alias))
                        .sum::<usize>(),
            ),
            ("bindings", self.bindings.heap_bytes()),
            ("ref_ranges", self.ref_ranges.heap_bytes()),
            (
                "reference_pieces_index",
                self.ref_pieces.as_ref().map_or(0, |s| s.heap_bytes()),
            ),
            (
                "clause_pieces_index",
                self.clause_pieces.as_ref().map_or(0, |s| s.heap_bytes()),
            ),
            (
                "binding_pages_index",
                self.spill.as_ref().map_or(0, |s| s.heap_bytes()),
            ),
            (
                "definition_pieces_index",
                self.symbol_spill.as_ref().map_or(0, |s| s.heap_bytes()),
            ),
            (
                "import_pieces_index",
                self.import_pieces.as_ref().map_or(0, |s| s.heap_bytes()),
            ),
        ]
    }
}

/// Turns one extracted file into rows (allocating ids), moving its facts; the file's resolver
/// context goes to `inputs` now, the rest follows from the rows once they are written
/// ([`absorb_rows`]), so no name is copied twice.
pub(crate) fn file_rows(
    item: Extracted,
    extractor: &str,
    next: &mut sextant_store::IdRanges,
    lang: usize,
    inputs: &mut ResolverInputs,
) -> FileBatch {
    let Extracted {
        path,
        language: item_language,
        module,
        hash,
        size,
        lossy,
        uncommitted,
        facts,
        ..
    } = item;
    let facts = facts.expect("extracted");
    let language = item_language.id();
    let sep = item_language.manifest.separator.as_str();
    let file_id = next.file;
    next.file += 1;
    let file_node = next.node;
    next.node += 1;
    let file_name = path.rsplit('/').next().unwrap_or(&path).to_string();
    let mut nodes = Vec::with_capacity(facts.definitions.len() + 1);
    nodes.push(NewNode {
        id: file_node,
        file_id,
        stable_id: stable_id("file", &path, ""),
        kind: NodeKind::File,
        name_tokens: sextant_search::name_tokens(&file_name),
        name: file_name,
        qname: path.clone(),
        language: language.to_string(),
        parent_id: None,
        span: sextant_model::Span {
            end_line: facts.line_count,
            end_byte: size as u32,
            start_line: 1,
            ..Default::default()
        },
        signature: path.clone(),
        doc: None,
        visibility: Visibility::Public,
        modifiers: String::new(),
        complexity: None,
        type_text: None,
        qname_tokens: path.replace(['/', '.', '_', '-'], " "),
    });
    let file = resolve::FileRef {
        id: file_id,
        node: file_node,
        path: &path,
        module: &module,
        lang,
    };
    if let Err(e) = push_file(&mut inputs.files, inputs.file_spill.as_mut(), file) {
        inputs.spill_error.get_or_insert(format!("files: {e}"));
    }
    let base = next.node;
    let module_tokens = sextant_extract::split_qualified(&module)
        .iter()
        .map(|s| sextant_search::name_tokens(s))
        .collect::<Vec<_>>()
        .join(" ");
    let mut seen: FxHashMap<String, u32> = FxHashMap::default();
    next.node += facts.definitions.len() as i64;
    for (i, d) in facts.definitions.into_iter().enumerate() {
        let id = base + i as i64;
        let local = d.scope_path.join(sep);
        let qname = match (module.is_empty(), local.is_empty()) {
            (true, _) => local,
            (false, true) => module.clone(),
            (false, false) => format!("{module}{sep}{local}"),
        };
        let occurrence = seen.entry(qname.clone()).or_default();
        let stable = if *occurrence == 0 {
            stable_id(language, &qname, &path)
        } else {
            stable_id(language, &qname, &format!("{path}#{occurrence}"))
        };
        *occurrence += 1;
        let parent = d.parent.map(|p| base + i64::from(p)).unwrap_or(file_node);
        // The module's words once per file, then the definition's own scope path.
        let mut qname_tokens = module_tokens.clone();
        for segment in &d.scope_path {
            if !qname_tokens.is_empty() {
                qname_tokens.push(' ');
            }
            qname_tokens.push_str(&sextant_search::name_tokens(segment));
        }
        nodes.push(NewNode {
            id,
            file_id,
            stable_id: stable,
            kind: d.kind,
            name_tokens: sextant_search::name_tokens(&d.name),
            name: d.name,
            qname,
            language: language.to_string(),
            parent_id: Some(parent),
            span: d.span,
            signature: d.signature,
            doc: d.doc,
            visibility: d.visibility,
            modifiers: d.modifiers.join(","),
            complexity: d.complexity,
            type_text: d.type_text,
            qname_tokens,
        });
    }
    let src_of =
        |enclosing: Option<u32>| enclosing.map(|e| base + i64::from(e)).unwrap_or(file_node);
    let mut refs = Vec::with_capacity(facts.references.len());
    for r in facts.references {
        let id = next.reference;
        next.reference += 1;
        refs.push(RefRow {
            id,
            file_id,
            src_id: src_of(r.enclosing),
            kind: r.kind,
            name: r.name,
            receiver: r.receiver,
            implementor: r.implementor,
            line: r.span.start_line,
            col: r.span.start_col,
            end_col: r.span.end_col,
        });
    }
    let mut imports = Vec::with_capacity(facts.imports.len());
    for i in facts.imports {
        let id = next.import;
        next.import += 1;
        imports.push(ImportRow {
            id,
            file_id,
            src_id: src_of(i.enclosing),
            source: i.source,
            name: i.name,
            alias: i.alias,
            wildcard: i.wildcard,
            line: i.span.start_line,
            col: i.span.start_col,
        });
    }
    let bindings: Vec<BindingRow> = facts
        .bindings
        .into_iter()
        .map(|b| BindingRow {
            file_id,
            scope_id: src_of(b.enclosing),
            name: b.name,
            type_text: b.type_text,
            value: b.value,
            line: b.line,
        })
        .collect();
    let diagnostics = (!facts.diagnostics.is_empty()).then(|| {
        facts
            .diagnostics
            .iter()
            .map(|d| format!("{} {}: {}", d.kind.as_str(), d.line, d.message))
            .collect::<Vec<_>>()
            .join("\n")
    });
    let file = FileVersionRow {
        id: file_id,
        path,
        hash,
        language: language.to_string(),
        module,
        extractor: extractor.to_string(),
        size,
        lines: facts.line_count,
        lossy,
        node_id: file_node,
        diagnostics,
        uncommitted,
    };
    (file, nodes, refs, imports, bindings)
}

/// A node row (written now, or of a reused file version) as the resolver's definition: the
/// rows of both kinds have these fields.
macro_rules! symbol_ref {
    ($n:expr) => {
        resolve::SymRef {
            id: $n.id,
            file: $n.file_id,
            kind: $n.kind,
            declaration: $n.modifiers.split(',').any(is_declaration_modifier),
            name: &$n.name,
            qname: &$n.qname,
            parent: $n.parent_id,
            type_text: $n.type_text.as_deref(),
        }
    };
}
use symbol_ref;

/// Copies binding rows into the resolver's bindings.
pub(crate) fn push_bindings(to: &mut resolve::Bindings, rows: &[BindingRow]) {
    for b in rows {
        to.push(
            b.file_id,
            b.scope_id,
            &b.name,
            b.type_text.as_deref(),
            b.value.as_deref(),
        );
    }
}

/// Adds a file to the resolver's: to `spill` when there is one, else to `files`.
fn push_file(
    files: &mut Vec<resolve::FileCtx>,
    spill: Option<&mut resolve::FilesOut>,
    f: resolve::FileRef<'_>,
) -> std::io::Result<()> {
    match spill {
        Some(spill) => spill.push(f),
        None => {
            files.push(resolve::FileCtx {
                id: f.id,
                node: f.node,
                path: f.path.to_string(),
                module: f.module.to_string(),
                lang: f.lang,
            });
            Ok(())
        }
    }
}

/// Moves written rows into the resolver's inputs (File nodes are not symbols).
pub(crate) fn absorb_rows(batch: &mut Vec<FileBatch>, inputs: &mut ResolverInputs) {
    for (_, nodes, refs, imports, bindings) in batch.drain(..) {
        let defs = nodes.iter().filter(|n| n.kind != NodeKind::File);
        match (inputs.symbol_spill.as_mut(), nodes.first()) {
            (Some(spill), Some(first)) => {
                if let Err(e) = spill.add(first.file_id, defs.map(|n| symbol_ref!(n))) {
                    inputs
                        .spill_error
                        .get_or_insert(format!("definitions: {e}"));
                }
            }
            _ => {
                for n in defs {
                    inputs.symbols.push(symbol_ref!(n));
                }
            }
        }
        drop(nodes);
        if inputs.streamed
            && let (Some(first), Some(last)) = (refs.first(), refs.last())
        {
            // A file's references have consecutive ids (see `file_rows`).
            let range = sextant_store::RefRange {
                file_id: first.file_id,
                first: first.id,
                last: last.id,
                count: refs.len() as u64,
            };
            if let Err(e) = inputs.ref_ranges.push(&range) {
                inputs
                    .spill_error
                    .get_or_insert(format!("reference ranges: {e}"));
            }
        }
        let to_ref = |r: RefRow| resolve::Ref {
            id: r.id,
            file: r.file_id,
            src: r.src_id,
            kind: r.kind,
            name: r.name,
            receiver: r.receiver,
            implementor: r.implementor,
        };
        if !inputs.streamed {
            inputs.refs.extend(refs.into_iter().map(to_ref));
        } else {
            if let Some(pieces) = inputs.ref_pieces.as_mut()
                && let Err(e) = pieces.add(&refs)
            {
                // The pieces written so far may be incomplete: all are read from the store.
                tracing::warn!("references read back from the store: {e}");
                inputs.ref_pieces = None;
            }
            let clauses = refs
                .into_iter()
                .filter(|r| matches!(r.kind, RefKind::Inherit | RefKind::Implement))
                .map(to_ref);
            match inputs.clause_pieces.as_mut() {
                Some(pieces) => {
                    if let Err(e) = pieces.add(&clauses.collect::<Vec<_>>()) {
                        inputs
                            .spill_error
                            .get_or_insert(format!("inheritance clauses: {e}"));
                    }
                }
                None => inputs.refs.extend(clauses),
            }
        }
        let imports = imports.into_iter().map(|i| resolve::Imp {
            id: i.id,
            file: i.file_id,
            src: i.src_id,
            source: i.source,
            name: i.name,
            alias: i.alias,
            wildcard: i.wildcard,
        });
        match inputs.import_pieces.as_mut() {
            Some(pieces) => {
                if let Err(e) = pieces.add(&imports.collect::<Vec<_>>()) {
                    inputs.spill_error.get_or_insert(format!("imports: {e}"));
                }
            }
            None => inputs.imports.extend(imports),
        }
        match inputs.spill.as_mut() {
            Some(spill) => {
                if let Err(e) = spill.add(&bindings, &mut inputs.bindings) {
                    inputs.spill_error.get_or_insert(format!("bindings: {e}"));
                }
            }
            None => push_bindings(&mut inputs.bindings, &bindings),
        }
    }
}

/// The root a path belongs to: the nearest indexed ancestor, else the git working tree, else itself.
pub fn find_root(start: &Path) -> PathBuf {
    let start = start.canonicalize().unwrap_or_else(|_| start.to_path_buf());
    let mut cur = Some(start.as_path());
    while let Some(dir) = cur {
        if DataDir::for_root(dir).exists() {
            return dir.to_path_buf();
        }
        cur = dir.parent();
    }
    sextant_git::discover(&start)
        .and_then(|w| w.canonicalize().ok())
        .unwrap_or(start)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sextant_model::{Confidence, EdgeKind, Provenance, RefKind};

    /// The rows keep the resolver's edge order, sort unresolved rows by reference, give each row
    /// its file, and fingerprint each file from exactly its own rows (as a plain per-file
    /// computation does), whatever order the rows came in.
    #[test]
    fn resolved_rows_fingerprint_each_file_from_its_own_rows() {
        let node_file = NodeFiles::new([(100, 10), (101, 10), (200, 11), (201, 11)]);
        let refs: Vec<resolve::Ref> = (0..400)
            .map(|i| resolve::Ref {
                id: 1000 + i,
                file: if i % 3 == 0 { 11 } else { 10 },
                src: if i % 3 == 0 { 200 } else { 101 },
                kind: RefKind::Call,
                name: format!("n{i}"),
                receiver: None,
                implementor: None,
            })
            .collect();
        let edges: Vec<resolve::Edge> = (0..600i64)
            .map(|i| resolve::Edge {
                src: [101, 200, 100, 201][(i % 4) as usize],
                dst: 100 + (i * 7) % 5,
                kind: if i % 2 == 0 {
                    EdgeKind::Calls
                } else {
                    EdgeKind::Reads
                },
                provenance: Provenance::Inferred,
                confidence: Confidence::High,
                rule: if i % 5 == 0 { "scope" } else { "same_file" },
                ref_id: Some(1000 + (i * 13) % 400),
                import_id: None,
            })
            .collect();
        let unresolved: Vec<resolve::Unresolved> = (0..200)
            .rev()
            .map(|k| k * 2)
            .map(|i| resolve::Unresolved {
                ref_id: 1000 + i,
                reason: if i % 4 == 0 {
                    "external"
                } else {
                    "no_candidates"
                },
                candidates: 0,
            })
            .collect();
        let output = resolve::Output { edges, unresolved };
        let all_files = [12, 11, 10];
        let rows = ResolvedRows::of(&output, &node_file, &refs, &all_files);

        let expected: Vec<(i64, i64, i64)> = output
            .edges
            .iter()
            .map(|e| (e.src, e.dst, node_file.get(e.src).unwrap()))
            .collect();
        let got: Vec<(i64, i64, i64)> = rows
            .edges
            .iter()
            .flatten()
            .map(|e| (e.src, e.dst, e.file_id))
            .collect();
        assert_eq!(got, expected);
        let ids: Vec<i64> = rows.unresolved.iter().map(|u| u.ref_id).collect();
        assert!(
            ids.windows(2).all(|w| w[0] < w[1]),
            "unresolved rows not by reference"
        );
        assert!(
            rows.unresolved
                .iter()
                .all(|u| u.file_id == if (u.ref_id - 1000) % 3 == 0 { 11 } else { 10 })
        );

        assert_eq!(rows.hashes.len(), 3);
        for (file, hash) in all_files.iter().zip(&rows.hashes) {
            let mut e: Vec<EdgeKey> = rows
                .edges
                .iter()
                .flatten()
                .filter(|x| x.file_id == *file)
                .map(edge_key)
                .collect();
            let mut u: Vec<UnresolvedKey> = rows
                .unresolved
                .iter()
                .filter(|x| x.file_id == *file)
                .map(|x| (x.ref_id, x.reason, x.candidates))
                .collect();
            assert_eq!(*hash, set_hash(&mut e, &mut u), "file {file}");
        }
        assert_ne!(rows.hashes[1], rows.hashes[2]);
        assert_eq!(rows.edge_counts["calls/inferred"], 300);
        assert_eq!(rows.edge_counts["reads/inferred"], 300);
        assert_eq!(rows.unresolved_counts["external"], 100);
        assert_eq!(rows.unresolved_counts["no_candidates"], 100);

        // The same resolution made a batch of files at a time: a head (imports, inheritance)
        // by file, then each batch's references in runs (one of them empty). Each file gets
        // the same fingerprint, and all the rows and counts come out the same.
        let ref_file: FxHashMap<i64, i64> = refs.iter().map(|r| (r.id, r.file)).collect();
        let head = resolve::Output {
            edges: output.edges[..100].to_vec(),
            unresolved: output.unresolved[..10].to_vec(),
        };
        let done: FxHashMap<i64, i64> = head
            .unresolved
            .iter()
            .map(|u| (u.ref_id, ref_file[&u.ref_id]))
            .collect();
        let mut by_file = head_rows(head, &done, &node_file);
        let run = |file: i64, edges: &[resolve::Edge], unresolved: &[resolve::Unresolved]| RowRun {
            edges: edges
                .iter()
                .filter(|e| node_file.get(e.src).unwrap() == file)
                .map(|e| edge_row(e, &node_file))
                .collect(),
            unresolved: unresolved
                .iter()
                .filter(|u| ref_file[&u.ref_id] == file)
                .map(|u| UnresolvedRow {
                    file_id: file,
                    ref_id: u.ref_id,
                    reason: u.reason,
                    candidates: u.candidates,
                })
                .collect(),
        };
        let batches: Vec<ResolvedRows> = [(&[12, 11][..], 11), (&[10][..], 10)]
            .into_iter()
            .map(|(files, file)| {
                let runs = vec![
                    run(file, &output.edges[100..350], &output.unresolved[10..90]),
                    run(file, &[], &[]),
                    run(file, &output.edges[350..], &output.unresolved[90..]),
                ];
                batch_rows(|f| by_file.remove(&f), runs, files)
            })
            .collect();
        assert!(by_file.is_empty(), "head rows left: {:?}", by_file.keys());
        let hashes: Vec<i64> = batches.iter().flat_map(|b| b.hashes.clone()).collect();
        assert_eq!(hashes, rows.hashes);
        let sorted_edges = |r: &mut dyn Iterator<Item = &EdgeRow>| -> Vec<(i64, EdgeKey)> {
            let mut v: Vec<(i64, EdgeKey)> = r.map(|e| (e.file_id, edge_key(e))).collect();
            v.sort_unstable();
            v
        };
        assert_eq!(
            sorted_edges(&mut batches.iter().flat_map(|b| b.edges.iter().flatten())),
            sorted_edges(&mut rows.edges.iter().flatten())
        );
        let mut unresolved: Vec<(i64, i64, &str)> = batches
            .iter()
            .flat_map(|b| b.unresolved.iter().map(|u| (u.file_id, u.ref_id, u.reason)))
            .collect();
        unresolved.sort_unstable_by_key(|u| u.1);
        let expected: Vec<(i64, i64, &str)> = rows
            .unresolved
            .iter()
            .map(|u| (u.file_id, u.ref_id, u.reason))
            .collect();
        assert_eq!(unresolved, expected);
        for batch in &batches {
            let ids: Vec<i64> = batch.unresolved.iter().map(|u| u.ref_id).collect();
            assert!(
                ids.windows(2).all(|w| w[0] < w[1]),
                "a batch's unresolved rows not by reference"
            );
        }
        let mut counts = Counts::default();
        for b in &batches {
            for (k, n) in &b.edge_counts {
                *counts.edges.entry(k.clone()).or_default() += n;
            }
            for (k, n) in &b.unresolved_counts {
                *counts.unresolved.entry(k.clone()).or_default() += n;
            }
        }
        assert_eq!(counts.edges, rows.edge_counts);
        assert_eq!(counts.unresolved, rows.unresolved_counts);
    }

    /// Batches end after the file that brings them to [`REF_BATCH`] references; files without
    /// references belong to a batch too, and an empty repository has one empty batch.
    #[test]
    fn node_files_answer_as_a_map_of_every_node() {
        // Files' nodes in runs, one file's in two runs, a File node apart from its file's run,
        // ids given out of order; and the same as a map.
        let pairs = [
            (5, 1),
            (6, 1),
            (7, 1),
            (20, 2),
            (8, 2),
            (9, 2),
            (10, 1),
            (11, 1),
            (1, 3),
            (-4, 3),
            (i64::MAX, 4),
        ];
        let dir = tempfile::tempdir().unwrap();
        let map: FxHashMap<i64, i64> = pairs.into_iter().collect();
        for runs in [
            NodeFiles::new(pairs),
            NodeFiles::in_dir(dir.path(), pairs).unwrap(),
        ] {
            for id in -6..25 {
                assert_eq!(runs.get(id), map.get(&id).copied(), "node {id}");
            }
            assert_eq!(runs.get(i64::MAX), Some(4));
            assert_eq!(runs.get(i64::MIN), None);
            // Consecutive ids of one file make one run.
            assert_eq!(runs.runs.records().len(), 7);
        }
        assert_eq!(NodeFiles::new([]).get(0), None);
        assert_eq!(NodeFiles::in_dir(dir.path(), []).unwrap().get(0), None);
        assert!(NodeFiles::in_dir(&dir.path().join("missing"), pairs).is_err());
    }

    /// Takes `bytes` of `in_flight` on a thread of its own; checks that it waits (still
    /// waiting after 100 ms), runs `release` and returns what it took once it has.
    fn taken_after(in_flight: &Arc<InFlight>, bytes: u64, release: impl FnOnce()) -> Held {
        let (tx, rx) = std::sync::mpsc::channel();
        let waiting = {
            let in_flight = Arc::clone(in_flight);
            std::thread::spawn(move || {
                let held = in_flight.take(bytes);
                tx.send(()).unwrap();
                held
            })
        };
        let wait = std::time::Duration::from_millis(100);
        assert!(rx.recv_timeout(wait).is_err(), "{bytes} taken without room");
        release();
        rx.recv_timeout(std::time::Duration::from_secs(30))
            .expect("room made");
        waiting.join().unwrap()
    }

    #[test]
    fn source_in_flight_waits_for_room_and_a_large_file_goes_alone() {
        let in_flight = InFlight::new(1000);
        let a = in_flight.take(600);
        let b = in_flight.take(300);
        assert_eq!(in_flight.used(), 900);
        // 200 more do not fit: the taker waits until something is given back.
        let c = taken_after(&in_flight, 200, || drop(a));
        assert_eq!(in_flight.used(), 500);
        drop((b, c));
        assert_eq!(in_flight.used(), 0);
        // More than the limit is taken when nothing else is in flight, and then nothing fits.
        let big = in_flight.take(5000);
        assert_eq!(in_flight.used(), 5000);
        drop(taken_after(&in_flight, 1, || drop(big)));
        assert_eq!(in_flight.used(), 0);
    }

    #[test]
    fn ref_batches_cover_every_file_once_in_order() {
        let range = |file_id: i64, count| sextant_store::RefRange {
            file_id,
            first: file_id * 100,
            last: file_id * 100 + 1,
            count,
        };
        let files = [5, 3, 9, 1, 7];
        let ranges = [
            range(5, REF_BATCH - 1),
            range(3, 1),
            range(9, 2 * REF_BATCH),
            range(7, 4),
        ];
        let dir = tempfile::tempdir().unwrap();
        let ranges_of = |ranges: &[sextant_store::RefRange], in_dir: bool| {
            let mut r = match in_dir {
                true => FileRanges::in_dir(dir.path()).unwrap(),
                false => FileRanges::default(),
            };
            for range in ranges {
                r.push(range).unwrap();
            }
            r.sort().unwrap();
            r
        };
        let batches = |files: &[i64], ranges: &[sextant_store::RefRange]| {
            ref_batches(files, &ranges_of(ranges, true))
        };
        assert_eq!(batches(&files, &ranges), vec![0..2, 2..3, 3..5]);
        assert_eq!(batches(&files, &[]), vec![0..5]);
        assert_eq!(batches(&[], &[]), vec![0..0]);
        assert_eq!(batches(&[9], &[range(9, REF_BATCH)]), vec![0..1]);
        // On the heap or in a mapped file, alike.
        for found in [ranges_of(&ranges, false), ranges_of(&ranges, true)] {
            for f in [5, 3, 9, 7, 1, 0, 10] {
                let expected = ranges.iter().find(|r| r.file_id == f).copied();
                assert_eq!(found.get(f), expected, "file {f}");
            }
            assert_eq!(found.total(), ranges.iter().map(|r| r.count).sum::<u64>());
        }
    }

    #[test]
    fn buckets_keep_row_order_and_leave_unknown_files_out() {
        let slot: FxHashMap<i64, usize> = [(7, 0), (5, 1), (9, 2)].into_iter().collect();
        // Rows of files 5, 7, 4 (no slot) and none of 9, interleaved.
        let files = [5, 7, 4, 5, 7, 7, 4, 5];
        let b = Buckets::of(files.iter().copied(), &slot, 3);
        let rows = |bucket| b.rows(bucket).collect::<Vec<_>>();
        assert_eq!(rows(0), vec![1, 4, 5]);
        assert_eq!(rows(1), vec![0, 3, 7]);
        assert_eq!(rows(2), Vec::<usize>::new());
    }
}
