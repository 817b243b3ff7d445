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
    /// Files read and hashed by this run; the others' content was known from the stat cache
    /// (identical stat since they were last hashed, and not racily clean).
    pub files_hashed: u64,
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
    /// Fingerprint of what resolution depends on besides the file versions (repository
    /// packages, Cargo manifests, extractor versions): two generations with the same file
    /// versions and the same context have the same edges.
    pub context: String,
    /// Every file version was unchanged and an earlier generation (this one) had exactly the
    /// same set and context: its edge sets were shared, nothing was resolved again.
    pub reused_generation: Option<i64>,
    /// Files whose edges came out as in the previous generation: their edge sets were shared,
    /// not written again.
    pub sets_shared: u64,
    /// What the run did with the shared baseline cache (`None`: no cache configured).
    pub cache: Option<crate::cache::CacheReport>,
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
    /// `exact`, `prefix`, `text`, `fuzzy`, or `filter` (a search without text).
    pub matched: &'static str,
}

/// Search filters and paging.
#[derive(Debug, Clone, Default)]
pub struct SearchOptions {
    /// Node kinds (or Cypher labels: `Function`, `TypeAlias`).
    pub kinds: Vec<String>,
    pub language: Option<String>,
    pub path_prefix: Option<String>,
    pub limit: u32,
    /// Hits to skip: a page starts at the `offset`-th hit of the whole list.
    pub offset: u32,
    /// Regular expressions (`regex` syntax, unanchored) on the name, the qualified name and
    /// the repository-relative file path.
    pub name_regex: Option<String>,
    pub qname_regex: Option<String>,
    pub file_regex: Option<String>,
    /// Inclusive bounds on distinct callers and callees (`calls` and `instantiates` edges) and
    /// on incoming edges of any kind (references).
    pub min_callers: Option<u32>,
    pub max_callers: Option<u32>,
    pub min_callees: Option<u32>,
    pub max_callees: Option<u32>,
    pub min_references: Option<u32>,
    pub max_references: Option<u32>,
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

/// One type or method reached in a hierarchy.
#[derive(Debug, Clone)]
pub struct HierarchyEntry {
    /// 1 = direct base, subtype, overridden or overriding method; 2 = one further; ...
    pub depth: u32,
    /// The symbol reached, with the edge (`inherits`, `implements`, `overrides`) that reached it.
    pub neighbor: Neighbor,
    /// The node this one was reached from.
    pub from: i64,
}

/// The type hierarchy around a type, or the override chain around a method.
#[derive(Debug, Clone)]
pub struct Hierarchy {
    pub root: Symbol,
    pub depth: u32,
    /// Types the root derives from or implements (outgoing `inherits`/`implements`), transitively.
    pub bases: Vec<HierarchyEntry>,
    /// Types deriving from or implementing the root (incoming), transitively.
    pub derived: Vec<HierarchyEntry>,
    /// Methods the root method overrides (outgoing `overrides`), transitively.
    pub overrides: Vec<HierarchyEntry>,
    /// Methods overriding the root method (incoming `overrides`), transitively.
    pub overridden_by: Vec<HierarchyEntry>,
    /// Base names written on the root (or its owner type) that resolved to nothing in the
    /// repository (`Exception`, `Display`, a base outside the index).
    pub unresolved_bases: Vec<UnresolvedSite>,
    /// A level held more than the per-level cap.
    pub truncated: bool,
    /// Of `derived` / `overridden_by`: unresolved `inherit`/`implement` sites naming the type.
    pub completeness: Completeness,
}

/// Which way an impact analysis walks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImpactDirection {
    /// Who depends on the roots (what breaks if they change).
    Upstream,
    /// What the roots depend on.
    Downstream,
    Both,
}

impl ImpactDirection {
    pub fn as_str(self) -> &'static str {
        match self {
            ImpactDirection::Upstream => "upstream",
            ImpactDirection::Downstream => "downstream",
            ImpactDirection::Both => "both",
        }
    }

    pub fn parse(text: &str) -> Option<ImpactDirection> {
        match text {
            "upstream" | "up" => Some(ImpactDirection::Upstream),
            "downstream" | "down" => Some(ImpactDirection::Downstream),
            "both" => Some(ImpactDirection::Both),
            _ => None,
        }
    }
}

/// One symbol affected by a change.
#[derive(Debug, Clone)]
pub struct ImpactEntry {
    /// Distance from the roots: 1 = direct.
    pub depth: u32,
    /// `Upstream` (depends on the roots) or `Downstream` (the roots depend on it).
    pub direction: ImpactDirection,
    /// The affected symbol and the edge that reached it.
    pub neighbor: Neighbor,
    /// The node it was reached from (a root, a root's member, or an earlier entry).
    pub from: i64,
    pub from_name: String,
    /// Risk labels: `test`, `public_api`, `entry_point`.
    pub labels: Vec<&'static str>,
}

impl ImpactEntry {
    /// `will_break` (direct), `likely_affected` (depth 2), `may_need_testing` (3 and more).
    pub fn risk(&self) -> &'static str {
        match self.depth {
            0 | 1 => "will_break",
            2 => "likely_affected",
            _ => "may_need_testing",
        }
    }
}

/// What a change to some symbols affects.
#[derive(Debug, Clone)]
pub struct Impact {
    pub roots: Vec<Symbol>,
    pub direction: ImpactDirection,
    pub depth: u32,
    pub per_level: u32,
    /// Breadth first: by direction, then depth.
    pub affected: Vec<ImpactEntry>,
    /// (depth, affected symbols).
    pub by_depth: Vec<(u32, u64)>,
    /// (label, affected symbols), labels `test`, `public_api`, `entry_point`.
    pub by_label: Counts,
    /// (path, affected symbols in it), most first.
    pub files: Counts,
    /// Affected symbols labelled `test` (the tests to run).
    pub tests: Vec<Symbol>,
    /// Files holding those tests.
    pub test_files: Vec<String>,
    /// Some level held more than `per_level` symbols.
    pub truncated: bool,
    /// Of the first level: unresolved same-name sites for the roots (upstream), unresolved
    /// references made by the roots (downstream), ambiguous edges.
    pub completeness: Completeness,
}

/// One step of a dependency path: `from` depends on `neighbor.symbol` through `neighbor.edge_kind`.
#[derive(Debug, Clone)]
pub struct PathHop {
    pub from: i64,
    pub neighbor: Neighbor,
}

/// A shortest dependency path between two symbols.
#[derive(Debug, Clone)]
pub struct DepPath {
    pub from: Symbol,
    pub to: Symbol,
    /// `from` → ... → `to`. A `contains` first hop enters a member of `from`; a `member_of`
    /// last hop leaves a member of `to` for `to` itself.
    pub hops: Vec<PathHop>,
}

/// The outcome of a path search, with how far it looked.
#[derive(Debug, Clone)]
pub struct PathSearch {
    pub path: Option<DepPath>,
    pub max_depth: u32,
    /// Path lengths fully searched (equal to `max_depth` unless the search ran out of nodes or
    /// hit the node cap first).
    pub searched_depth: u32,
    /// Nodes reached from either end.
    pub visited: u64,
    /// Every node reachable from one end was visited: no path exists at any depth.
    pub exhausted: bool,
    /// The search stopped at the node cap.
    pub capped: bool,
    /// Edge kinds followed.
    pub kinds: Vec<String>,
}

/// Files and bytes of one language.
#[derive(Debug, Clone)]
pub struct LanguageShare {
    pub language: String,
    pub files: u64,
    pub bytes: u64,
    pub symbols: u64,
}

/// A directory (or package) of the repository with what it holds.
#[derive(Debug, Clone)]
pub struct Area {
    /// A directory path (`crates/engine`), or `.` for files at the root.
    pub path: String,
    pub files: u64,
    pub bytes: u64,
    pub symbols: u64,
    /// Files by language, most first.
    pub languages: Counts,
}

/// A place where execution starts.
#[derive(Debug, Clone)]
pub struct EntryPoint {
    /// `main` (a main function), `script` (a `__name__ == "__main__"` guard), `package_main`
    /// (a `__main__.py`).
    pub kind: &'static str,
    pub path: String,
    pub symbol: Option<Symbol>,
}

/// A symbol many others depend on.
#[derive(Debug, Clone)]
pub struct CentralSymbol {
    pub symbol: Symbol,
    /// Incoming `calls`, `references`, `instantiates`, `uses_type` edges (not ambiguous ones).
    pub incoming: u64,
    /// Distinct symbols those edges come from.
    pub sources: u64,
}

/// One file by size.
#[derive(Debug, Clone)]
pub struct FileSize {
    pub path: String,
    pub language: String,
    pub bytes: u64,
    pub lines: u32,
    pub symbols: u64,
}

/// The shape of a repository at a glance.
#[derive(Debug, Clone)]
pub struct Overview {
    pub root: PathBuf,
    pub generation: i64,
    pub commit: Option<String>,
    pub branch: Option<String>,
    /// When the generation was published (seconds since the epoch).
    pub indexed_at: Option<i64>,
    /// The repository's HEAD now.
    pub head_commit: Option<String>,
    /// HEAD moved since the index was built.
    pub stale: bool,
    pub uncommitted_files: u64,
    pub files: u64,
    pub bytes: u64,
    /// Definitions (File nodes left out).
    pub symbols: u64,
    /// Every edge, `contains` included (as `stats` counts them).
    pub edges: u64,
    /// By files, most first.
    pub languages: Vec<LanguageShare>,
    /// Top-level directories, a directory holding most of the repository split into its
    /// children; by files, most first (at most `max(top, 20)`).
    pub areas: Vec<Area>,
    /// Areas found (the list may be cut).
    pub areas_total: u64,
    pub entry_points: Vec<EntryPoint>,
    /// Entry points found (the list is cut at `max(top, 20)`).
    pub entry_points_total: u64,
    /// By incoming edges, most first (tests left out).
    pub central: Vec<CentralSymbol>,
    pub largest_files: Vec<FileSize>,
}
