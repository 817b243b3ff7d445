//! Plain result structs returned by the engine. Surfaces convert them to their own formats.

use std::path::PathBuf;

/// Counts by key, largest first.
pub type Counts = Vec<(String, u64)>;

/// What `index` did.
#[derive(Debug, Clone, Default)]
pub struct IndexSummary {
    pub root: PathBuf,
    pub db_path: PathBuf,
    pub generation: i64,
    pub commit: Option<String>,
    pub branch: Option<String>,
    /// Some indexed files differ from the HEAD commit.
    pub dirty: bool,
    pub files_indexed: u64,
    /// Unchanged file versions reused from the previous generation.
    pub files_reused: u64,
    pub files_uncommitted: u64,
    /// Bytes of source in the indexed files.
    pub bytes: u64,
    /// Bytes parsed in this run (re-extracted files).
    pub bytes_extracted: u64,
    pub skipped: Counts,
    /// Files with no supported language.
    pub ignored_files: u64,
    pub files_with_syntax_errors: u64,
    pub symbols: u64,
    pub references: u64,
    pub imports: u64,
    /// (`kind/provenance`, count)
    pub edges: Counts,
    pub unresolved: Counts,
    pub languages: Counts,
    /// (phase, seconds)
    pub phases: Vec<(String, f64)>,
    pub wall_seconds: f64,
    pub db_bytes: u64,
    /// What a SCIP index given with `--scip` changed.
    pub scip: Option<crate::ScipSummary>,
}

impl IndexSummary {
    /// Source megabytes (10^6) indexed per second of wall time.
    pub fn mb_per_second(&self) -> f64 {
        if self.wall_seconds <= 0.0 {
            return 0.0;
        }
        self.bytes as f64 / 1e6 / self.wall_seconds
    }
}

/// A position in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    pub path: String,
    pub line: u32,
    pub col: u32,
}

/// A definition as every answer shows it.
#[derive(Debug, Clone)]
pub struct Symbol {
    pub id: i64,
    pub stable_id: String,
    pub kind: String,
    pub name: String,
    pub qualified_name: String,
    pub language: String,
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub start_col: u32,
    pub signature: String,
    pub doc: Option<String>,
    pub visibility: String,
    pub modifiers: Vec<String>,
    pub complexity: Option<u32>,
    pub parent_id: Option<i64>,
}

/// A related symbol reached through an edge.
#[derive(Debug, Clone)]
pub struct Neighbor {
    pub symbol: Symbol,
    pub edge_kind: String,
    pub provenance: String,
    pub confidence: String,
    pub rule: String,
    pub site: Option<Site>,
}

/// A reference that could not be bound to one definition.
#[derive(Debug, Clone)]
pub struct UnresolvedSite {
    pub site: Site,
    pub kind: String,
    pub name: String,
    pub receiver: Option<String>,
    pub reason: String,
    pub candidates: u32,
}

/// How complete a graph answer is.
#[derive(Debug, Clone)]
pub enum Completeness {
    /// Every site that could add a result was resolved.
    Exact,
    /// Unresolved or ambiguous sites could add results.
    LowerBound {
        unresolved: u64,
        ambiguous: u64,
        sample: Vec<UnresolvedSite>,
    },
    /// The symbol's language or file could not be analysed.
    Unknown { reason: String },
}

impl Completeness {
    pub fn label(&self) -> &'static str {
        match self {
            Completeness::Exact => "exact",
            Completeness::LowerBound { .. } => "lower_bound",
            Completeness::Unknown { .. } => "unknown",
        }
    }
}

/// One search result.
#[derive(Debug, Clone)]
pub struct SearchHit {
    pub symbol: Symbol,
    /// `exact`, `prefix` or `text`.
    pub matched: &'static str,
}

/// Search filters.
#[derive(Debug, Clone, Default)]
pub struct SearchOptions {
    pub kinds: Vec<String>,
    pub language: Option<String>,
    pub path_prefix: Option<String>,
    pub limit: u32,
}

/// The card of one symbol.
#[derive(Debug, Clone)]
pub struct SymbolCard {
    pub symbol: Symbol,
    pub parent: Option<Symbol>,
    pub members: Vec<Symbol>,
    /// Incoming edges by kind.
    pub incoming: Counts,
    /// Outgoing edges by kind.
    pub outgoing: Counts,
    pub callers: Vec<Neighbor>,
    pub callees: Vec<Neighbor>,
}

/// References to a symbol.
#[derive(Debug, Clone)]
pub struct References {
    pub target: Symbol,
    pub references: Vec<Neighbor>,
    pub completeness: Completeness,
}

/// One node of a call traversal.
#[derive(Debug, Clone)]
pub struct CallStep {
    pub depth: u32,
    pub neighbor: Neighbor,
    /// The node this one was reached from.
    pub from: i64,
}

/// Callers or callees to a depth.
#[derive(Debug, Clone)]
pub struct CallGraph {
    pub root: Symbol,
    pub direction: &'static str,
    pub depth: u32,
    pub steps: Vec<CallStep>,
    pub truncated: bool,
    pub completeness: Completeness,
}

/// A span of source.
#[derive(Debug, Clone)]
pub struct SourceSpan {
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub text: String,
    /// The file changed since it was indexed (the text is current; positions may have moved).
    pub stale: bool,
    pub symbol: Option<Symbol>,
}

/// A file skipped by the last index.
#[derive(Debug, Clone)]
pub struct SkippedFile {
    pub path: String,
    pub reason: String,
    pub size: u64,
}

/// Index status of a repository.
#[derive(Debug, Clone, Default)]
pub struct Status {
    pub root: PathBuf,
    pub data_dir: PathBuf,
    pub indexed: bool,
    pub generation: Option<i64>,
    pub graph_commit: Option<String>,
    pub graph_branch: Option<String>,
    pub repo_commit: Option<String>,
    pub repo_branch: Option<String>,
    /// The repository's HEAD moved since the index was built.
    pub stale: bool,
    pub indexed_at: Option<i64>,
    pub files: u64,
    pub uncommitted_files: u64,
    pub skipped: Counts,
    pub skipped_files: Vec<SkippedFile>,
    pub languages: Counts,
    pub db_bytes: u64,
    /// The summary stored by the last index (JSON).
    pub last_index: Option<String>,
}

/// Graph histograms.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    pub nodes: Counts,
    pub edges: Counts,
    pub references: Counts,
    pub unresolved: Counts,
    pub languages: Counts,
}
