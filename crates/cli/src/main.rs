//! The `sextant` binary: argument parsing, dispatch, exit codes. Output formatting lives in
//! `output.rs` (the only place that writes to stdout).

mod analytics_cmds;
mod baselines_cmd;
mod change_cmds;
mod commands;
mod export;
mod graph_cmds;
mod json;
mod output;
mod search_cmd;
mod setup;
mod watch_cmd;
mod workspace_cmd;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// mimalloc: indexing allocates many small strings on several threads. The `system-alloc`
/// feature leaves the C library's allocator in place, for heap profilers (heaptrack, massif)
/// that see only `malloc`.
#[cfg(not(feature = "system-alloc"))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// tree-sitter's and SQLite's C code allocate through these (mimalloc's own C functions) instead
/// of libc `malloc`: the parser's many small blocks cost 4-5 % of Django's indexing CPU in glibc,
/// SQLite's blocks and its statistics mutex ~3 %. Out of memory aborts in the parser, as
/// tree-sitter's default allocator does; SQLite gets null and reports it.
#[cfg(not(feature = "system-alloc"))]
mod c_alloc {
    #![allow(unsafe_code)]
    use std::ffi::c_void;

    fn check(p: *mut c_void, size: usize) -> *mut c_void {
        if p.is_null() && size != 0 {
            std::process::abort();
        }
        p
    }
    unsafe extern "C" fn malloc(size: usize) -> *mut c_void {
        // SAFETY: plain C allocation call.
        check(unsafe { libmimalloc_sys::mi_malloc(size) }, size)
    }
    unsafe extern "C" fn calloc(count: usize, size: usize) -> *mut c_void {
        let Some(bytes) = count.checked_mul(size) else {
            std::process::abort();
        };
        // SAFETY: plain C allocation call (zeroed, as calloc's).
        check(unsafe { libmimalloc_sys::mi_zalloc(bytes) }, bytes)
    }
    unsafe extern "C" fn realloc(p: *mut c_void, size: usize) -> *mut c_void {
        // SAFETY: `p` came from these functions (tree-sitter never mixes allocators).
        check(unsafe { libmimalloc_sys::mi_realloc(p, size) }, size)
    }
    unsafe extern "C" fn free(p: *mut c_void) {
        // SAFETY: `p` came from these functions.
        unsafe { libmimalloc_sys::mi_free(p) }
    }
    unsafe extern "C" fn sqlite_malloc(size: usize) -> *mut c_void {
        // SAFETY: plain C allocation call; SQLite handles null.
        unsafe { libmimalloc_sys::mi_malloc(size) }
    }
    unsafe extern "C" fn sqlite_realloc(p: *mut c_void, size: usize) -> *mut c_void {
        // SAFETY: `p` came from `sqlite_malloc`/`sqlite_realloc`.
        unsafe { libmimalloc_sys::mi_realloc(p, size) }
    }
    unsafe extern "C" fn usable_size(p: *mut c_void) -> usize {
        // SAFETY: `p` is a live block of mimalloc's.
        unsafe { libmimalloc_sys::mi_usable_size(p) }
    }

    /// mimalloc's `mi_option_purge_delay` (`mimalloc.h`; the crate exports no constant for it).
    const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

    /// mimalloc gives freed memory back to the system `purge_delay` ms after it is freed: 1 s
    /// by default (mimalloc 3). Indexing frees the read phase's parse data just as resolution
    /// builds its tables, and with the default both count in the peak. At 50 ms the peak RSS
    /// is 12-20 % lower for 1-3 % more wall time (`bench/RESULTS.md`). `MIMALLOC_PURGE_DELAY`
    /// in the environment still decides when it is set (and then `eager` changes nothing).
    const PURGE_DELAY_MS: std::ffi::c_long = 50;

    fn purge_delay_set() -> bool {
        std::env::var_os("MIMALLOC_PURGE_DELAY").is_some()
    }

    /// Sets the purge delay (`PURGE_DELAY_MS`).
    pub fn tune() {
        if !purge_delay_set() {
            // SAFETY: sets an option's value; called first thing in `main`, on the only thread.
            unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, PURGE_DELAY_MS) }
        }
    }

    /// Freed memory goes back at once (`true`) or after `PURGE_DELAY_MS` again
    /// (`sextant_engine::MemoryHooks::eager`).
    fn eager(on: bool) {
        if !purge_delay_set() {
            let delay = if on { 0 } else { PURGE_DELAY_MS };
            // SAFETY: sets an option's value, which mimalloc reads when it next purges.
            unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, delay) }
        }
    }

    /// Gives the freed memory mimalloc holds back to the system at once, on the calling
    /// thread's heap and the arenas (`sextant_engine::MemoryHooks::release`).
    fn collect() {
        // SAFETY: a plain call of mimalloc's, valid on any thread at any time.
        unsafe { libmimalloc_sys::mi_collect(true) }
    }

    /// Installs them; first thing in `main`, before any thread, tree-sitter object or SQLite
    /// connection exists.
    pub fn install() {
        // SAFETY: one allocator family, malloc-aligned, never null (aborts instead), and called
        // before anything of tree-sitter's exists, on the only thread.
        unsafe {
            sextant_engine::set_parser_allocator(sextant_engine::ParserAllocator {
                malloc,
                calloc,
                realloc,
                free,
            });
            sextant_engine::set_store_allocator(sextant_engine::StoreAllocator {
                malloc: sqlite_malloc,
                realloc: sqlite_realloc,
                free,
                usable_size,
            });
        }
        sextant_engine::set_memory_hooks(sextant_engine::MemoryHooks {
            release: collect,
            eager,
        });
    }
}

/// Sextant: a local code graph for agents and people. Index a repository, then ask where things
/// are defined, who calls them, and what they reference.
#[derive(Debug, Parser)]
#[command(name = "sextant", version, about, long_about = None)]
pub struct Cli {
    /// Repository to query (default: the indexed repository containing the current directory).
    #[arg(long, global = true, value_name = "PATH")]
    pub repo: Option<PathBuf>,
    /// Machine-readable JSON output.
    #[arg(long, global = true)]
    pub json: bool,
    /// Read commands answer from this named workspace (`sextant workspace create NAME`).
    #[arg(long, global = true, value_name = "NAME")]
    pub workspace: Option<String>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Index a repository (default: the current directory) and publish a new generation.
    Index {
        /// The repository root.
        path: Option<PathBuf>,
        /// Re-extract every file even when an identical version is already stored.
        #[arg(long)]
        full: bool,
        /// Skip files larger than this many bytes.
        #[arg(long, default_value_t = 1 << 20)]
        max_file_size: u64,
        /// Worker threads (0 = all cores).
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// A SCIP index of the same source (scip-python, scip-typescript, rust-analyzer, ...):
        /// where it covers a reference, its answer replaces the heuristic one (provenance
        /// `asserted`).
        #[arg(long, value_name = "INDEX.scip")]
        scip: Option<PathBuf>,
    },
    /// Find symbols by name: exact name first, then prefix, then full text; filter by kind,
    /// path, regular expressions and caller/callee/reference counts (without a query: every
    /// symbol passing the filters).
    Search(search_cmd::SearchArgs),
    /// Show a symbol's card: signature, doc, location, members, neighbours.
    #[command(visible_alias = "symbol")]
    Show { symbol: String },
    /// Print the source of a symbol, or PATH:START-END.
    Source {
        target: String,
        /// Lines of context around the span.
        #[arg(long, default_value_t = 0)]
        context: u32,
    },
    /// References to a symbol (calls, type uses, inheritance, imports, ...).
    #[command(visible_alias = "references")]
    Refs {
        symbol: String,
        /// Only these edge kinds (calls, uses_type, inherits, implements, imports, instantiates, ...).
        #[arg(long, value_delimiter = ',')]
        kind: Vec<String>,
    },
    /// Who calls a symbol, to a depth.
    Callers {
        symbol: String,
        #[arg(long, default_value_t = 1)]
        depth: u32,
        /// At most this many symbols per level.
        #[arg(long, default_value_t = 100)]
        limit: u32,
    },
    /// What a symbol calls, to a depth.
    Callees {
        symbol: String,
        #[arg(long, default_value_t = 1)]
        depth: u32,
        #[arg(long, default_value_t = 100)]
        limit: u32,
    },
    /// Callers (`--direction in`) or callees (`--direction out`) of a symbol, like the MCP
    /// `calls` tool.
    Calls {
        symbol: String,
        #[arg(long, value_parser = ["in", "out"], default_value = "in")]
        direction: String,
        #[arg(long, default_value_t = 3)]
        depth: u32,
        /// At most this many symbols per level.
        #[arg(long, default_value_t = 20)]
        limit: u32,
    },
    /// Type hierarchy of a class (bases, subtypes) or override chain of a method.
    Hierarchy(graph_cmds::HierarchyArgs),
    /// What a change to symbols affects: dependants by distance (1 will break, 2 likely
    /// affected, 3+ may need testing), risk labels (test, public_api, entry_point), tests to run.
    Impact(graph_cmds::ImpactArgs),
    /// The shortest dependency path from one symbol to another, hop by hop.
    Path(graph_cmds::PathArgs),
    /// The repository at a glance: languages, areas, entry points, central symbols, largest
    /// files, index freshness.
    Overview(graph_cmds::OverviewArgs),
    /// What a change touches: changed files and the definitions their changed lines fall in
    /// (git working tree, a revision range, a unified diff, or whole files), then what depends
    /// on those definitions (impact) and the tests to run.
    Changes(change_cmds::ChangesArgs),
    /// Search the indexed files' text (regular expression or literal); each hit names its
    /// enclosing definition.
    Grep(change_cmds::GrepArgs),
    /// Run a read-only Cypher query over the graph (`MATCH (f:Function)-[:CALLS]->(g) RETURN
    /// f.name, g.name LIMIT 10`); `sextant schema` lists what it can name.
    Query(analytics_cmds::QueryArgs),
    /// The graph's vocabulary for `query`: node labels and relationship types with counts,
    /// properties, examples.
    Schema,
    /// The most central symbols (PageRank over dependency edges).
    Central(analytics_cmds::CentralArgs),
    /// Bridges: symbols many shortest dependency paths pass through (betweenness).
    Bridges(analytics_cmds::LimitArgs),
    /// Communities of densely connected symbols (Louvain), with labels, central members and
    /// links between them.
    Communities(analytics_cmds::CommunitiesArgs),
    /// Dependency cycles between files, directories (`--level module`) or functions.
    Cycles(analytics_cmds::CyclesArgs),
    /// Where execution starts: mains, scripts, routes, CLI commands, handlers, tests, public API.
    EntryPoints(analytics_cmds::EntryPointsArgs),
    /// The call tree from an entry point, or every entry point by how much it reaches.
    Flows(analytics_cmds::FlowsArgs),
    /// Definitions nothing uses (said only when sure; the undecided are `unknown`, with
    /// reasons). Rules in `.sextant.toml` `[dead_code]`.
    DeadCode(analytics_cmds::DeadCodeArgs),
    /// The most complex functions, and complexity per file and per target.
    Complexity(analytics_cmds::ComplexityArgs),
    /// Layers of the directory dependency graph, most coupled directories, hotspots.
    Architecture(analytics_cmds::LimitArgs),
    /// Index status: commit indexed vs HEAD, files, skipped files by reason.
    Status { path: Option<PathBuf> },
    /// Node and edge histograms (edges by kind and provenance).
    Stats { path: Option<PathBuf> },
    /// Score the index against a SCIP index of the same source (compiler-grade ground truth,
    /// e.g. from scip-python or scip-typescript): definition top-1, references and callers
    /// precision/recall, per language.
    Eval {
        /// The SCIP index (index.scip) to compare with.
        #[arg(long, value_name = "INDEX.scip")]
        scip: PathBuf,
        /// Sample sites per language and outcome (wrong, abstained, not extracted, false
        /// positive) to list after the scores.
        #[arg(long, default_value_t = 0)]
        samples: usize,
    },
    /// Serve the repository to MCP clients over stdio (default) or streamable HTTP (`--http`).
    /// With stdio, stdout carries protocol messages only; logs go to stderr.
    Serve {
        /// Listen for streamable HTTP on this address (`127.0.0.1:7337`; port 0 picks a free
        /// one) at path `/mcp`, instead of stdio.
        #[arg(long, value_name = "ADDR")]
        http: Option<std::net::SocketAddr>,
        /// Toolsets to list (`core`; `all` for every available one). Default: core.
        #[arg(long, value_delimiter = ',')]
        toolsets: Vec<String>,
        /// HTTP: require `Authorization: Bearer TOKEN` (at least 16 characters). Also read from
        /// SEXTANT_MCP_TOKEN.
        #[arg(long, env = "SEXTANT_MCP_TOKEN", hide_env_values = true)]
        token: Option<String>,
        /// HTTP: allow listening on a non-loopback address (needs --token).
        #[arg(long)]
        allow_remote: bool,
        /// HTTP: accept this `Host` header too (repeat); loopback names are always accepted.
        #[arg(long, value_name = "HOST")]
        allow_host: Vec<String>,
        /// HTTP: accept browser requests from this origin too (`https://app.example.com:443`);
        /// loopback origins are always accepted, others get 403.
        #[arg(long, value_name = "ORIGIN")]
        allow_origin: Vec<String>,
        /// HTTP: largest request body in bytes (larger ones get 413).
        #[arg(long, default_value_t = 1 << 20)]
        max_body: usize,
        /// Do not watch the repository. By default the server keeps its index fresh: it indexes
        /// on start (incrementally) and re-indexes after every burst of file changes, commits
        /// and checkouts, like `sextant watch`.
        #[arg(long)]
        no_watch: bool,
    },
    /// Index, then keep the index fresh: re-index incrementally whenever files change (and on
    /// commits and checkouts), with a live status line, until Ctrl-C.
    Watch(watch_cmd::WatchArgs),
    /// The generations kept for this repository (the active one, the previous one, and the
    /// baselines of recent commits that make checking them out again free), and garbage
    /// collection.
    #[command(subcommand)]
    Baselines(baselines_cmd::BaselinesCommand),
    /// Named workspaces: overlays of edited files on the index of a commit, isolated from each
    /// other; query one with `--workspace NAME`.
    #[command(subcommand)]
    Workspace(workspace_cmd::WorkspaceCommand),
    /// Export the whole graph of the active generation: JSON, JSON lines, Graphviz DOT, GraphML,
    /// or a call graph (caller qualified name → callee qualified names, as JSON).
    Export {
        #[arg(long, value_enum, default_value_t = export::Format::Json)]
        format: export::Format,
        /// Only these edge kinds (contains, calls, instantiates, uses_type, inherits, implements,
        /// imports, ...); default all. Ignored by `--format callgraph` (always `calls`).
        #[arg(long, value_delimiter = ',', value_parser = export::parse_kind)]
        kinds: Vec<String>,
        /// Write to this file instead of stdout.
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Connect a coding agent: write its MCP configuration (running `sextant serve` on this
    /// repository) and a short instruction block saying when to prefer Sextant's tools.
    /// Existing configuration is merged, not replaced; running it again updates in place.
    Setup {
        #[arg(value_enum)]
        agent: setup::Agent,
        /// Print what would be written instead of writing it.
        #[arg(long)]
        print: bool,
    },
}

/// Exit codes (documented in the README).
pub mod exit {
    pub const OK: u8 = 0;
    pub const ERROR: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const NOT_FOUND: u8 = 3;
    pub const NOT_INDEXED: u8 = 4;
}

fn main() -> ExitCode {
    #[cfg(not(feature = "system-alloc"))]
    {
        c_alloc::tune();
        c_alloc::install();
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        // No colour codes in logs an MCP client (or a file) captures.
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SEXTANT_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    ExitCode::from(commands::run(cli))
}
