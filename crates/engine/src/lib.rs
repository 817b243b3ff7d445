//! Sextant's API boundary: indexing orchestration (walk → extract in parallel → store → resolve →
//! publish) and the queries behind every surface. Returns plain structs; surfaces serialize.

mod analytics;
mod baselines;
mod blobs;
mod cache;
mod changes;
pub mod config;
mod eval;
mod export;
mod graph;
mod grep;
mod home;
mod layout;
mod live;
mod mapped;
mod pipeline;
mod query;
pub mod redact;
mod scip_map;
mod scip_merge;
mod search;
mod spill;
mod stat_rows;
mod stored;
mod types;
mod walked;
mod warmup;
mod watch;
mod workspace;

pub use analytics::{
    Architecture, Bridges, Central, Community, CommunityLink, CommunityReport, ComplexFunction,
    ComplexityReport, ComplexityTotal, Coupling, Cycle, CycleEdge, Cycles, DeadCode,
    DeadCodeConfig, DeadItem, EntryPointItem, EntryPoints, FlowStep, FlowSummary, Flows, Hotspot,
    Layer, NodeRef, QueryError, QueryOutput, QueryTruncation, RankedNode, RepoConfig, SchemaEntry,
    SchemaReport, load_repo_config,
};
pub use baselines::{
    Baseline, PinChange, baselines, collect_baselines, pin_baseline, unpin_baseline,
};
pub use cache::{
    CACHE_DIR_ENV, CacheReport, CacheTransfer, baseline_file, cache_dir, cache_dir_from_env,
    pull_baseline, push_baseline,
};
pub use changes::{
    ChangeInput, ChangeSet, ChangedFile, ChangedSymbol, IndexSide, LineHunk, read_diff_file,
};
pub use eval::{
    DefinitionScore, EvalCorpus, EvalReport, EvalSample, LanguageScore, PrecisionRecall, read_scip,
};
pub use export::{EdgeSite, ExportEdge, ExportNode, GraphExport};
pub use graph::{IMPACT_KINDS, is_test_path};
pub use grep::{GrepFile, GrepHit, GrepOptions, GrepResult};
pub use home::{
    DataDir, KnownRepo, data_home, known_repositories, read_config_text, repo_data_dir,
};
pub use live::{FULL_THRESHOLD, LiveIndex, LiveUpdate};
pub use pipeline::{IndexOptions, Progress, find_root, index};
pub use query::{Repo, SymbolError, status, status_in};
pub use scip_merge::ScipSummary;
pub use search::{
    SEARCH_CAP, SearchPage, SearchSummary, kind_from_label, set_degree_scan_threshold_for_tests,
};
pub use sextant_lang::{ParserAllocator, set_parser_allocator};
pub use sextant_scip::Index as ScipIndex;
pub use sextant_store::{StoreAllocator, set_store_allocator};
pub use types::*;
pub use watch::{WatchEvent, WatchOptions, WatchTrigger, watch};
pub use workspace::{
    Consistency, RefreshInput, ViewInfo, ViewRequest, WorkspaceCreated, WorkspaceDeleted,
    WorkspaceInfo, WorkspaceList, WorkspaceRefresh, WorkspaceReset,
    check_name as check_workspace_name, create_workspace, delete_workspace, list_workspaces,
    refresh_workspace, reset_workspace,
};

/// Engine failures, each saying what to do.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Store(#[from] sextant_store::StoreError),
    #[error("language definitions failed to load: {0}")]
    Languages(#[from] sextant_lang::LoadError),
    #[error("{0} is not a directory")]
    NotADirectory(String),
    #[error("{0} has not been indexed yet; run `sextant index {0}` first (or pass --repo PATH)")]
    NotIndexed(String),
    #[error("{0}")]
    Io(String),
    #[error(transparent)]
    Symbol(#[from] SymbolError),
    #[error(transparent)]
    Scip(#[from] sextant_scip::Error),
    #[error(transparent)]
    Path(#[from] sextant_vfs::ConfineError),
    /// An argument that cannot be used (an invalid regular expression, a malformed diff...).
    #[error("{0}")]
    InvalidArgument(String),
    #[error(transparent)]
    Git(#[from] sextant_git::GitError),
    /// A Cypher query that cannot run; the message points at the position with a caret.
    #[error(transparent)]
    Query(#[from] QueryError),
    /// Indexing was cancelled before it published; the previous generation still serves.
    #[error("cancelled before publishing; the previous index is unchanged")]
    Cancelled,
}

pub type Result<T> = std::result::Result<T, Error>;

/// What the binary's allocator does at an index's turns, set once at start
/// ([`set_memory_hooks`]); without them nothing is called.
#[derive(Debug, Clone, Copy)]
pub struct MemoryHooks {
    /// Gives the freed memory the allocator holds for the calling thread back to the system now
    /// (mimalloc's `mi_collect`). Called on each of an index's threads when its read phase
    /// ends: the read phase's freed blocks sit in those threads' heaps while the resolver, on a
    /// thread of its own, builds its tables in fresh memory; given back at once, they are not
    /// counted twice (on 73 MB of source the peak anonymous memory is ~13 MiB lower,
    /// `bench/RESULTS.md`).
    pub release: fn(),
    /// `true`: from now on freed memory goes back to the system at once; `false`: after the
    /// allocator's usual delay again. An index turns it on when its read phase ends and off when
    /// it returns (however it returns). After the read phase memory is freed in large blocks,
    /// rarely: at once costs no measurable time there and takes 15-20 MiB off the peak RSS of
    /// the resolution on 73 MB of source (10 on Django); through the read phase, whose parser
    /// frees small blocks all the time, it would cost 5-10 % of the wall time.
    pub eager: fn(bool),
}

static MEMORY_HOOKS: std::sync::OnceLock<MemoryHooks> = std::sync::OnceLock::new();

/// Indexes past their read phase in this process: eager release is on while any is.
static EAGER: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Sets the allocator's hooks ([`MemoryHooks`]). Only the first call has an effect.
pub fn set_memory_hooks(hooks: MemoryHooks) {
    let _ = MEMORY_HOOKS.set(hooks);
}

/// Eager release ([`MemoryHooks::eager`]) while this lives.
pub(crate) struct EagerRelease(Option<MemoryHooks>);

impl EagerRelease {
    pub(crate) fn start() -> EagerRelease {
        let hooks = MEMORY_HOOKS.get().copied();
        if let Some(h) = hooks
            && EAGER.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0
        {
            (h.eager)(true);
        }
        EagerRelease(hooks)
    }
}

impl Drop for EagerRelease {
    fn drop(&mut self) {
        if let Some(h) = self.0
            && EAGER.fetch_sub(1, std::sync::atomic::Ordering::SeqCst) == 1
        {
            (h.eager)(false);
        }
    }
}

/// Calls the memory release ([`MemoryHooks::release`]) on every thread of `pool` and this one.
pub(crate) fn release_memory(pool: &rayon::ThreadPool) {
    pool.broadcast(|_| sextant_lang::release_spare_chunks());
    sextant_lang::release_spare_chunks();
    if let Some(h) = MEMORY_HOOKS.get() {
        pool.broadcast(|_| (h.release)());
        (h.release)();
    }
}
