//! Analytics tools (the `analytics` toolset): `query` (read-only Cypher), `schema`, `central`,
//! `bridges`, `communities`, `cycles`, `entry_points`, `flows`, `dead_code`, `complexity` and
//! `architecture`. Each is a thin adapter from typed arguments to one engine analytics call
//! (the graph of the generation is loaded once per process; PageRank, betweenness and
//! communities are cached in `derived.db`) and from its result to a bounded envelope: lists are
//! paged with cursors and cut to the `max_tokens` budget; `query` keeps whole rows within
//! `max_output_bytes` and says what it left out.

use std::time::Duration;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::{Json, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sextant_engine as engine;

use super::*;
use crate::budget::{Cursor, Limits, fingerprint, json_len};
use crate::dto::*;
use crate::server::{SextantServer, check_kinds, engine_err, page_meta};

/// A Cypher query stops itself after this long (before the server's 30 s deadline, so it never
/// keeps running after the call has answered).
const QUERY_DEADLINE: Duration = Duration::from_secs(25);
/// Bytes of the answer kept for `meta` when fitting data to a budget.
const META_RESERVE: usize = 512;
/// Members listed per cycle.
const CYCLE_MEMBERS: usize = 100;
/// Entry-point kinds, in the engine's order.
const ENTRY_KINDS: &[&str] = &[
    "main",
    "script",
    "package_main",
    "route",
    "cli",
    "handler",
    "configured",
    "test",
    "public_api",
];

fn default_query_rows() -> u32 {
    200
}
fn default_query_bytes() -> u32 {
    32 * 1024
}
fn default_limit() -> u32 {
    20
}
fn default_list_limit() -> u32 {
    50
}
fn default_min_size() -> u32 {
    3
}
fn default_communities() -> u32 {
    10
}
fn default_cycles() -> u32 {
    10
}
fn default_flow_depth() -> u32 {
    5
}
fn default_flow_limit() -> u32 {
    100
}

/// Non-finite floats would serialize as `null` and break the output schema.
fn fin(x: f64) -> f64 {
    if x.is_finite() { x } else { 0.0 }
}

// ---- shared output types ----

/// A symbol as the analytics tools name it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct NodeOut {
    /// Stable id (`sym_…`): pass it as `symbol` to the core tools.
    pub id: String,
    pub kind: String,
    pub name: String,
    pub qualified_name: String,
    pub path: String,
    /// 1-based start line.
    pub line: u32,
}

impl NodeOut {
    fn from(n: &engine::NodeRef) -> Self {
        NodeOut {
            id: n.id.clone(),
            kind: n.kind.to_string(),
            name: n.name.clone(),
            qualified_name: n.qualified_name.clone(),
            path: n.path.clone(),
            line: n.line,
        }
    }
}

/// A symbol with a score.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct RankedOut {
    /// 1 = highest.
    pub rank: u64,
    pub node: NodeOut,
    pub score: f64,
    /// Incoming dependency edges (call sites counted).
    pub incoming: u64,
    /// Outgoing dependency edges.
    pub outgoing: u64,
}

impl RankedOut {
    fn from(r: &engine::RankedNode) -> Self {
        RankedOut {
            rank: r.rank as u64,
            node: NodeOut::from(&r.node),
            score: fin(r.score),
            incoming: r.incoming,
            outgoing: r.outgoing,
        }
    }
}

/// The largest count in `0..=n` whose answer (`size(count)` bytes) fits in `budget`; at least
/// one when `n > 0`, so paging always moves.
fn fit_count(n: usize, budget: usize, size: impl Fn(usize) -> usize) -> usize {
    if n <= 1 || size(n) <= budget {
        return n;
    }
    // size(lo) fits (or lo is the minimum of one), size(hi) does not.
    let (mut lo, mut hi) = (1, n);
    while lo + 1 < hi {
        let mid = lo + (hi - lo) / 2;
        if size(mid) <= budget {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// One page of `items` (the engine's list from the start): at most `page` from `offset`, as
/// many as fit in `budget` beside the rest of the answer (`build` makes the answer from the
/// page). Fills the paging fields of `meta`.
#[allow(clippy::too_many_arguments)]
fn paged<T: Clone, D: Serialize>(
    meta: &mut Meta,
    tool: &str,
    fp: u64,
    offset: usize,
    page: usize,
    items: &[T],
    budget: usize,
    build: impl Fn(Vec<T>) -> D,
) -> D {
    let window = items.get(offset..).unwrap_or(&[]);
    let take = window.len().min(page);
    let more = window.len() > page;
    let n = fit_count(take, budget.saturating_sub(META_RESERVE), |n| {
        json_len(&build(window[..n].to_vec()))
    });
    page_meta(meta, tool, fp, offset, n, more || n < take, n < take);
    meta.limit = Some(page as u32);
    build(window[..n].to_vec())
}

/// An engine error of `flows`: a symbol that does not resolve names the `entry` argument.
fn entry_err(e: engine::Error) -> String {
    match e {
        e @ (engine::Error::Symbol(_) | engine::Error::InvalidArgument(_)) => {
            format!("argument `entry`: {}", engine_err(e))
        }
        e => engine_err(e),
    }
}

// ---- query ----

/// `query` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct QueryArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// A read-only Cypher query: MATCH, OPTIONAL MATCH, WHERE, WITH, UNWIND, RETURN, ORDER BY,
    /// SKIP, LIMIT, UNION, aggregates, variable-length paths (`-[:CALLS*1..3]->`). Labels are
    /// node kinds (`Function`, `Class`, ...), relationship types edge kinds (`CALLS`,
    /// `INHERITS`, ...); `schema` lists them with the property names.
    pub query: String,
    /// Values for `$name` parameters: strings, numbers, booleans, null or lists of them.
    /// Default {}.
    #[serde(default)]
    pub params: serde_json::Map<String, serde_json::Value>,
    /// At most this many rows. Default 200, at most 10000.
    #[serde(default = "default_query_rows")]
    pub max_rows: u32,
    /// At most this many bytes of rows as JSON: whole rows past it are left out and
    /// `output_truncated` says how many. Default 32768, at most 1048576.
    #[serde(default = "default_query_bytes")]
    pub max_output_bytes: u32,
}

/// Rows left out to keep the answer under `max_output_bytes`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct QueryTruncationOut {
    /// Rows the query returned.
    pub rows_total: u64,
    /// Rows kept (whole rows, in order).
    pub rows_kept: u64,
    /// Bytes all rows would take as JSON.
    pub bytes: u64,
    pub max_output_bytes: u64,
    pub hint: String,
}

/// Counters of the run.
#[derive(Debug, Serialize, JsonSchema)]
pub struct QueryStatsOut {
    /// Adjacency entries examined.
    pub expansions: u64,
    /// Candidate nodes examined.
    pub rows_scanned: u64,
    pub elapsed_ms: f64,
}

/// `query` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct QueryData {
    pub columns: Vec<String>,
    /// One array per row, one value per column: nodes as objects (`id`, `kind`, `name`,
    /// `qualified_name`, `path`, `line`), relationships with `type`, `src`, `dst`, `provenance`,
    /// `count`, paths as `{nodes, rels}`.
    pub rows: Vec<Vec<serde_json::Value>>,
    /// Rows the query produced (at most `max_rows`); `rows` may hold fewer (`output_truncated`).
    pub row_count: u64,
    pub max_rows: u64,
    /// More than `max_rows` rows matched: add LIMIT/SKIP, or raise `max_rows`.
    pub max_rows_reached: bool,
    /// Set when the rows did not fit in `max_output_bytes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_truncated: Option<QueryTruncationOut>,
    /// E.g. a variable-length upper bound capped.
    pub warnings: Vec<String>,
    pub stats: QueryStatsOut,
}

/// Clause keywords the read-only subset refuses.
const WRITE_CLAUSES: &[&str] = &[
    "CREATE", "MERGE", "SET", "DELETE", "DETACH", "REMOVE", "CALL", "LOAD", "FOREACH", "DROP",
    "USE",
];

/// The clause a position in a Cypher query falls in (`MATCH`, `WHERE`, `RETURN`, ..., or a
/// refused write clause at the position), from the words before it: strings, comments,
/// properties (`n.limit`), labels, map keys and parameters are not clause words.
pub(crate) fn clause_at(text: &str, offset: usize) -> Option<String> {
    const CLAUSES: &[&str] = &[
        "MATCH", "WHERE", "WITH", "UNWIND", "RETURN", "ORDER", "SKIP", "LIMIT", "UNION",
    ];
    let bytes = text.as_bytes();
    let mut offset = offset.min(text.len());
    // The word at the position counts when it is a refused clause (`CREATE` is the CREATE
    // clause); an error at `RETURN` after an unclosed pattern is still in the MATCH clause.
    let mut end = offset;
    while end < bytes.len() && (bytes[end].is_ascii_alphanumeric() || bytes[end] == b'_') {
        end += 1;
    }
    let at = text.get(offset..end).unwrap_or("").to_ascii_uppercase();
    if WRITE_CLAUSES.contains(&at.as_str()) {
        offset = end;
    }
    let mut clause: Option<String> = None;
    let mut prev_word: Option<String> = None;
    let mut prev_sig: u8 = b' ';
    let mut i = 0;
    while i < offset {
        let c = bytes[i];
        match c {
            b'\'' | b'"' | b'`' => {
                i += 1;
                while i < offset && bytes[i] != c {
                    if bytes[i] == b'\\' && c != b'`' {
                        i += 1;
                    }
                    i += 1;
                }
                i += 1;
                prev_sig = c;
                prev_word = None;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < offset && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < offset && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < offset && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                    i += 1;
                }
                let word = text[start..i].to_ascii_uppercase();
                let mut next = i;
                while next < bytes.len() && bytes[next].is_ascii_whitespace() {
                    next += 1;
                }
                let key = bytes.get(next) == Some(&b':') && !matches!(prev_sig, b'(' | b'[');
                let named = matches!(prev_sig, b'.' | b':' | b'$') || key;
                if !named
                    && (CLAUSES.contains(&word.as_str()) || WRITE_CLAUSES.contains(&word.as_str()))
                {
                    clause = Some(match (word.as_str(), prev_word.as_deref()) {
                        ("MATCH", Some("OPTIONAL")) => "OPTIONAL MATCH".to_string(),
                        ("ORDER", _) => "ORDER BY".to_string(),
                        _ => word.clone(),
                    });
                }
                prev_word = Some(word);
                prev_sig = b'a';
            }
            c if c.is_ascii_whitespace() => i += 1,
            _ => {
                prev_sig = c;
                prev_word = None;
                i += 1;
            }
        }
    }
    clause
}

/// A Cypher error as the tool error text: the argument, the kind, the clause, the position
/// with the query line and a caret, and what to do.
fn query_error(text: &str, e: &engine::QueryError) -> String {
    let clause = match clause_at(text, e.offset) {
        Some(c) => format!(" in the {c} clause"),
        None => " at the start of the query".to_string(),
    };
    let (what, hint) = match e.kind {
        "syntax" => ("syntax error", ""),
        "unsupported" => ("unsupported feature", ""),
        "unknown" => (
            "unknown name",
            "\n`schema` lists the labels, relationship types and properties.",
        ),
        "limit" => (
            "limit reached",
            "\nNarrow the query: anchor a pattern on a name (`{name: 'x'}`), lower variable-length bounds, add LIMIT.",
        ),
        "type" => ("type error", ""),
        other => (other, ""),
    };
    format!(
        "argument `query`: Cypher {what}{clause} at {}{hint}",
        e.display
    )
}

// ---- schema ----

/// `schema` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SchemaArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
}

/// A label or relationship type and how many carry it.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SchemaEntryOut {
    /// As written in queries: `Function`, `USES_TYPE`.
    pub name: String,
    /// As stored: `function`, `uses_type`.
    pub kind: String,
    pub count: u64,
}

/// `schema` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SchemaData {
    pub nodes: u64,
    /// Parallel edges of one kind merged (`r.count` says how many); `CONTAINS` included.
    pub relationships: u64,
    pub node_labels: Vec<SchemaEntryOut>,
    pub relationship_types: Vec<SchemaEntryOut>,
    pub node_properties: Vec<String>,
    pub relationship_properties: Vec<String>,
    pub examples: Vec<String>,
}

// ---- central, bridges ----

/// `central` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CentralArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// Only these kinds (function, method, class, ...). Default: all but files, documents,
    /// modules, packages and namespaces.
    #[serde(default)]
    pub kind: Vec<String>,
    /// Results per page. Default 20, at most 100 (the ranking ends at 1000).
    #[serde(default = "default_limit")]
    pub limit: u32,
    /// `next_cursor` of the previous page. Default "": the first page.
    #[serde(default)]
    pub cursor: String,
    /// Answer budget in tokens. Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

/// `central` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CentralData {
    /// Edge kinds PageRank followed.
    pub edge_kinds: Vec<String>,
    pub nodes_ranked: u64,
    pub iterations: u32,
    pub converged: bool,
    /// Scores came from `derived.db`.
    pub cached: bool,
    pub compute_ms: f64,
    /// Test code is ranked but not listed.
    pub tests_excluded: bool,
    pub results: Vec<RankedOut>,
}

/// `bridges` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BridgesArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// Results per page. Default 20, at most 100 (the ranking ends at 1000).
    #[serde(default = "default_limit")]
    pub limit: u32,
    /// `next_cursor` of the previous page. Default "": the first page.
    #[serde(default)]
    pub cursor: String,
    /// Answer budget in tokens. Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

/// `bridges` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct BridgesData {
    pub nodes: u64,
    /// Breadth-first sources run; fewer than `nodes` means a sampled estimate.
    pub sources: u64,
    pub exact: bool,
    pub cached: bool,
    pub compute_ms: f64,
    pub results: Vec<RankedOut>,
}

// ---- communities ----

/// `communities` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CommunitiesArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// Only communities with at least this many members. Default 3.
    #[serde(default = "default_min_size")]
    pub min_size: u32,
    /// Communities per page, largest first. Default 10, at most 100.
    #[serde(default = "default_communities")]
    pub limit: u32,
    /// `next_cursor` of the previous page. Default "": the first page.
    #[serde(default)]
    pub cursor: String,
    /// Answer budget in tokens. Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

/// Edges to another community.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CommunityLinkOut {
    pub community: u32,
    pub label: String,
    /// Dependency edges between the two (both directions).
    pub edges: u64,
}

/// One community.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CommunityOut {
    /// 0 is the largest.
    pub id: u32,
    pub size: u64,
    /// The deepest directory holding most members, or the dominant one `(+N directories)`.
    pub label: String,
    pub label_share: f64,
    pub files: u64,
    /// Most central members (at most 5).
    pub top_members: Vec<RankedOut>,
    /// Most linked other communities (at most 5).
    pub links: Vec<CommunityLinkOut>,
    pub internal_edges: u64,
}

/// `communities` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CommunitiesData {
    /// Communities in all, singletons included.
    pub count: u64,
    /// With at least `min_size` members.
    pub eligible: u64,
    pub min_size: u64,
    pub modularity: f64,
    pub levels: u32,
    pub cached: bool,
    pub compute_ms: f64,
    pub communities: Vec<CommunityOut>,
}

// ---- cycles ----

/// What `cycles` looks at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CycleLevel {
    /// Files depending on each other.
    #[default]
    File,
    /// Directories depending on each other.
    Module,
    /// Functions calling each other.
    Function,
}

impl CycleLevel {
    fn as_str(self) -> &'static str {
        match self {
            CycleLevel::File => "file",
            CycleLevel::Module => "module",
            CycleLevel::Function => "function",
        }
    }
}

/// `cycles` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CyclesArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// `file`, `module` (directories) or `function` (calls). Default `file`.
    #[serde(default)]
    pub level: CycleLevel,
    /// Cycles per page, largest first. Default 10, at most 100.
    #[serde(default = "default_cycles")]
    pub limit: u32,
    /// `next_cursor` of the previous page. Default "": the first page.
    #[serde(default)]
    pub cursor: String,
    /// Answer budget in tokens. Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

/// An edge inside a cycle.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CycleEdgeOut {
    pub from: String,
    pub to: String,
    /// Dependency edges it stands for.
    pub count: u64,
}

/// One cycle (a strongly connected component).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CycleOut {
    pub size: u64,
    /// Paths (file), directories (module) or qualified names (function); at most 100.
    pub members: Vec<String>,
    /// Function level: the functions (at most 100).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<NodeOut>,
    /// Edges between members (at most 30).
    pub edges: Vec<CycleEdgeOut>,
}

/// `cycles` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CyclesData {
    pub level: String,
    pub edge_kinds: Vec<String>,
    /// Cycles found.
    pub count: u64,
    pub members_in_cycles: u64,
    /// Function level: functions calling themselves directly (not listed).
    pub self_recursive: u64,
    pub cycles: Vec<CycleOut>,
}

// ---- entry points, flows ----

/// `entry_points` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EntryPointsArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// Only these kinds: main, script, package_main, route, cli, handler, configured, test,
    /// public_api. Default: all.
    #[serde(default)]
    pub kind: Vec<String>,
    /// Entries per page. Default 50, at most 500.
    #[serde(default = "default_list_limit")]
    pub limit: u32,
    /// `next_cursor` of the previous page. Default "": the first page.
    #[serde(default)]
    pub cursor: String,
    /// Answer budget in tokens. Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

/// One entry point.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EntryPointOut {
    /// `main`, `script`, `package_main`, `route`, `cli`, `handler`, `configured`, `test`,
    /// `public_api`.
    pub kind: String,
    pub node: NodeOut,
    /// Why: the decorator, `urls.py`, the matching rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// `entry_points` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct EntryPointsData {
    /// Entry points of every kind.
    pub total: u64,
    /// Entry points of the kinds asked for.
    pub matching: u64,
    pub by_kind: Vec<KindCount>,
    /// Programs first (main, scripts, routes, CLI commands, handlers), then tests and public API.
    pub entries: Vec<EntryPointOut>,
}

/// `flows` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FlowsArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// The entry point (name, qualified name, id, script path) or any symbol whose call tree
    /// to show. Default "": list the program entry points by how much they reach.
    #[serde(default)]
    pub entry: String,
    /// Levels of calls to follow. Default 5, at most 20.
    #[serde(default = "default_flow_depth")]
    pub depth: u32,
    /// Steps (or entry points) per page. Default 100, at most 1000.
    #[serde(default = "default_flow_limit")]
    pub limit: u32,
    /// `next_cursor` of the previous page. Default "": the first page.
    #[serde(default)]
    pub cursor: String,
    /// Answer budget in tokens. Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

/// One symbol of a call tree.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FlowStepOut {
    /// 0 = the entry.
    pub depth: u32,
    pub node: NodeOut,
    /// Id of the symbol it is reached from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// `calls`, `instantiates`, or `contains` (a method of an entry class).
    pub edge: String,
}

/// An entry point's reach.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FlowSummaryOut {
    pub entry: NodeOut,
    pub kind: String,
    /// Symbols reached through calls and instantiations (the entry included).
    pub reached: u64,
    /// Deepest level reached.
    pub depth: u32,
    pub files: u64,
}

/// `flows` answer: the call tree of `entry`, or the entry points by reach.
#[derive(Debug, Serialize, JsonSchema)]
pub struct FlowsData {
    pub depth: u32,
    pub edge_kinds: Vec<String>,
    /// The entry whose tree `steps` is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry: Option<NodeOut>,
    /// Depth first, each step after its parent (paged).
    pub steps: Vec<FlowStepOut>,
    /// Symbols the tree reaches.
    pub reached: u64,
    /// Without `entry`: program entry points by reach, most first (paged).
    pub flows: Vec<FlowSummaryOut>,
    pub flows_total: u64,
}

// ---- dead code ----

/// `dead_code` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeadCodeArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// Only these kinds (function, method, class, ...). Default: callables and types.
    #[serde(default)]
    pub kind: Vec<String>,
    /// Items per page of `dead` (and of `unknown`). Default 50, at most 500.
    #[serde(default = "default_list_limit")]
    pub limit: u32,
    /// Also list the undecided definitions (`unknown`) with their reasons. Default true.
    #[serde(default = "yes")]
    pub unknown: bool,
    /// `next_cursor` of the previous page. Default "": the first page.
    #[serde(default)]
    pub cursor: String,
    /// Answer budget in tokens. Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

/// An unused or undecided definition.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DeadOut {
    pub node: NodeOut,
    /// `unreferenced` (dead), or why it is undecided: `vendored`, `dunder`,
    /// `unresolved_reference`, `override`, `polymorphic`, `subclass`, `external_base`,
    /// `decorated`, `exported`, `reflection`, `rebound`, `script_global`, `nested`, `mentioned`.
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    pub lines: u32,
}

impl DeadOut {
    fn from(d: &engine::DeadItem) -> Self {
        DeadOut {
            node: NodeOut::from(&d.node),
            reason: d.reason.to_string(),
            detail: d.detail.clone(),
            lines: d.lines,
        }
    }
}

/// The liveness rules applied (`<repo>/.sextant.toml` `[dead_code]`).
#[derive(Debug, Serialize, JsonSchema)]
pub struct DeadRulesOut {
    pub live_decorators: Vec<String>,
    pub live_names: Vec<String>,
    pub live_paths: Vec<String>,
    pub exported_is_live: bool,
}

/// `dead_code` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct DeadCodeData {
    /// Callables and types considered.
    pub candidates: u64,
    pub entry_points: u64,
    pub referenced: u64,
    pub dead_count: u64,
    pub unknown_count: u64,
    /// unknown / (dead + unknown).
    pub unknown_share: f64,
    pub unknown_by_reason: Vec<KindCount>,
    /// Nothing reaches or references them, and no rule says they may be used (paged).
    pub dead: Vec<DeadOut>,
    /// Unreferenced, but possibly used in ways the graph cannot see (paged with `dead`).
    pub unknown: Vec<DeadOut>,
    pub rules: DeadRulesOut,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config_file: Option<String>,
}

// ---- complexity, architecture ----

/// `complexity` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ComplexityArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// Only files under this repository-relative path. Default "": all.
    #[serde(default)]
    pub path: String,
    /// Functions per page (and files and targets on the first page). Default 20, at most 200.
    #[serde(default = "default_limit")]
    pub limit: u32,
    /// `next_cursor` of the previous page. Default "": the first page.
    #[serde(default)]
    pub cursor: String,
    /// Answer budget in tokens. Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

/// A function by complexity.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ComplexFunctionOut {
    pub node: NodeOut,
    pub complexity: u32,
    pub lines: u32,
}

/// Complexity summed over a file or a target.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ComplexityTotalOut {
    pub path: String,
    pub functions: u64,
    pub total: u64,
    pub max: u32,
    pub mean: f64,
}

impl ComplexityTotalOut {
    fn from(t: &engine::ComplexityTotal) -> Self {
        ComplexityTotalOut {
            path: t.path.clone(),
            functions: t.functions,
            total: t.total,
            max: t.max,
            mean: fin(t.mean),
        }
    }
}

/// `complexity` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ComplexityData {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Callables counted.
    pub functions: u64,
    pub total: u64,
    pub mean: f64,
    /// Most complex first (paged).
    pub most_complex: Vec<ComplexFunctionOut>,
    /// Files by total complexity (first page only).
    pub files: Vec<ComplexityTotalOut>,
    /// Per target: the top-level directory, or two levels under `crates/`, `packages/`, ...
    /// (first page only).
    pub targets: Vec<ComplexityTotalOut>,
}

/// `architecture` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ArchitectureArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// Entries per list (module cycles, coupled modules, hotspots). Default 20, at most 100.
    #[serde(default = "default_limit")]
    pub limit: u32,
    /// Answer budget in tokens. Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

/// Modules at one level of the layering.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LayerOut {
    /// 0: depends on no other module; n: on modules of lower levels.
    pub level: u32,
    pub size: u64,
    /// At most 50.
    pub modules: Vec<String>,
}

/// A module's coupling.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CouplingOut {
    pub module: String,
    /// Modules depending on it.
    pub fan_in: u64,
    /// Modules it depends on.
    pub fan_out: u64,
    pub edges_in: u64,
    pub edges_out: u64,
}

/// A large, complex, central function.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HotspotOut {
    pub node: NodeOut,
    pub lines: u32,
    pub complexity: u32,
    /// PageRank relative to the average (1.0 = average).
    pub centrality: f64,
    /// lines × complexity × centrality.
    pub score: f64,
}

/// `architecture` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ArchitectureData {
    /// Directories holding product code (tests left out).
    pub modules: u64,
    pub module_edges: u64,
    /// Bottom-up; modules in a cycle share a level.
    pub layers: Vec<LayerOut>,
    /// Module cycles.
    pub cycles: Vec<Vec<String>>,
    /// Most coupled modules (fan-in + fan-out).
    pub coupled: Vec<CouplingOut>,
    pub hotspots: Vec<HotspotOut>,
    pub cached: bool,
    pub compute_ms: f64,
}

fn strings(v: &[&'static str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Ranked lists end at 1000 in the engine; ask for one more than the page to see if there are
/// more.
fn want(offset: usize, page: usize) -> usize {
    offset + page + 1
}

#[tool_router(router = analytics_tools, vis = "pub(crate)")]
impl SextantServer {
    #[tool(
        description = "Run a read-only Cypher query over the code graph (see `schema` for labels, relationship types and properties), e.g. `MATCH (f:Function)-[:CALLS]->(g) RETURN f.name, g.name LIMIT 10`. Use it for questions the other tools do not answer directly.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn query(
        &self,
        Parameters(a): Parameters<QueryArgs>,
    ) -> Result<Json<Envelope<QueryData>>, String> {
        self.blocking(&a.repo.clone(), move |b| {
            b.answer(|repo, meta| {
                if a.query.trim().is_empty() {
                    return Err("argument `query` must not be empty".into());
                }
                let mut limits = Limits::default();
                let max_rows = limits.clamp("max_rows", a.max_rows, 200, 1, 10_000);
                let max_bytes =
                    limits.clamp("max_output_bytes", a.max_output_bytes, 32 * 1024, 256, 1 << 20);
                let q = repo
                    .query_with_params(
                        &a.query,
                        &a.params,
                        max_rows as usize,
                        max_bytes as usize,
                        Some(QUERY_DEADLINE),
                    )
                    .map_err(|e| match e {
                        engine::Error::Query(q) => query_error(&a.query, &q),
                        engine::Error::InvalidArgument(m) if m.starts_with("parameter $") => {
                            format!("argument `params`: {m}")
                        }
                        e => engine_err(e),
                    })?;
                let mut hints = Vec::new();
                if q.truncated {
                    hints.push(format!(
                        "more than {max_rows} rows matched: add ORDER BY with SKIP/LIMIT to page, aggregate, or raise `max_rows` (at most 10000)"
                    ));
                }
                if let Some(t) = &q.output_truncated {
                    hints.push(format!(
                        "{} of {} rows kept within max_output_bytes = {}: {}",
                        t.rows_kept, t.rows_total, t.max_output_bytes, t.hint
                    ));
                }
                if !hints.is_empty() {
                    meta.truncated = true;
                    meta.hint = Some(hints.join("; "));
                }
                meta.limit = Some(max_rows);
                meta.limits_applied = limits.applied;
                Ok(QueryData {
                    columns: q.columns,
                    rows: q.rows,
                    row_count: q.row_count as u64,
                    max_rows: q.max_rows as u64,
                    max_rows_reached: q.truncated,
                    output_truncated: q.output_truncated.map(|t| QueryTruncationOut {
                        rows_total: t.rows_total as u64,
                        rows_kept: t.rows_kept as u64,
                        bytes: t.bytes as u64,
                        max_output_bytes: t.max_output_bytes as u64,
                        hint: t.hint,
                    }),
                    warnings: q.warnings,
                    stats: QueryStatsOut {
                        expansions: q.expansions,
                        rows_scanned: q.rows_scanned,
                        elapsed_ms: fin(q.elapsed_ms),
                    },
                })
            })
        })
        .await
    }

    #[tool(
        description = "The graph's vocabulary for `query`: node labels and relationship types with counts, property names, and example queries.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn schema(
        &self,
        Parameters(a): Parameters<SchemaArgs>,
    ) -> Result<Json<Envelope<SchemaData>>, String> {
        self.blocking(&a.repo.clone(), move |b| {
            b.answer(|repo, _meta| {
                let s = repo.schema().map_err(engine_err)?;
                let entries = |v: &[engine::SchemaEntry]| {
                    v.iter()
                        .map(|e| SchemaEntryOut {
                            name: e.name.to_string(),
                            kind: e.kind.to_string(),
                            count: e.count as u64,
                        })
                        .collect()
                };
                Ok(SchemaData {
                    nodes: s.nodes as u64,
                    relationships: s.relationships as u64,
                    node_labels: entries(&s.node_labels),
                    relationship_types: entries(&s.relationship_types),
                    node_properties: strings(&s.node_properties),
                    relationship_properties: strings(&s.relationship_properties),
                    examples: strings(&s.examples),
                })
            })
        })
        .await
    }

    #[tool(
        description = "The most central symbols (PageRank over calls, type uses, inheritance, imports...; tests not listed): the core abstractions to read first in an unfamiliar codebase.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn central(
        &self,
        Parameters(a): Parameters<CentralArgs>,
    ) -> Result<Json<Envelope<CentralData>>, String> {
        self.blocking(&a.repo.clone(), move |b| {
            b.answer(|repo, meta| {
                let kinds = check_kinds("kind", &a.kind, false)?;
                let mut limits = Limits::default();
                let page = limits.clamp("limit", a.limit, 20, 1, 100) as usize;
                let budget = limits.budget_bytes(a.max_tokens);
                let fp = fingerprint(&["central", &kinds.join(",")]);
                let offset = Cursor::decode(&a.cursor, meta.generation, fp)?;
                let c = repo
                    .central(&kinds, want(offset, page))
                    .map_err(engine_err)?;
                let items: Vec<RankedOut> = c.results.iter().map(RankedOut::from).collect();
                meta.limits_applied = std::mem::take(&mut limits.applied);
                Ok(paged(
                    meta,
                    "central",
                    fp,
                    offset,
                    page,
                    &items,
                    budget,
                    |results| CentralData {
                        edge_kinds: strings(&c.edge_kinds),
                        nodes_ranked: c.nodes_ranked as u64,
                        iterations: c.iterations,
                        converged: c.converged,
                        cached: c.cached,
                        compute_ms: fin(c.compute_ms),
                        tests_excluded: c.tests_excluded,
                        results,
                    },
                ))
            })
        })
        .await
    }

    #[tool(
        description = "Bridge symbols: those on the most shortest dependency paths (betweenness), the chokepoints joining parts of the code. Tests not listed.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn bridges(
        &self,
        Parameters(a): Parameters<BridgesArgs>,
    ) -> Result<Json<Envelope<BridgesData>>, String> {
        self.blocking(&a.repo.clone(), move |b| {
            b.answer(|repo, meta| {
                let mut limits = Limits::default();
                let page = limits.clamp("limit", a.limit, 20, 1, 100) as usize;
                let budget = limits.budget_bytes(a.max_tokens);
                let fp = fingerprint(&["bridges"]);
                let offset = Cursor::decode(&a.cursor, meta.generation, fp)?;
                let r = repo.bridges(want(offset, page)).map_err(engine_err)?;
                let items: Vec<RankedOut> = r.results.iter().map(RankedOut::from).collect();
                meta.limits_applied = std::mem::take(&mut limits.applied);
                Ok(paged(
                    meta,
                    "bridges",
                    fp,
                    offset,
                    page,
                    &items,
                    budget,
                    |results| BridgesData {
                        nodes: r.nodes as u64,
                        sources: r.sources as u64,
                        exact: r.exact,
                        cached: r.cached,
                        compute_ms: fin(r.compute_ms),
                        results,
                    },
                ))
            })
        })
        .await
    }

    #[tool(
        description = "Communities of densely connected symbols (Louvain over dependency edges), largest first, each with a directory label, its most central members and its links to other communities: the real modules of the code.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn communities(
        &self,
        Parameters(a): Parameters<CommunitiesArgs>,
    ) -> Result<Json<Envelope<CommunitiesData>>, String> {
        self.blocking(&a.repo.clone(), move |b| {
            b.answer(|repo, meta| {
                let mut limits = Limits::default();
                let min_size = limits.clamp("min_size", a.min_size.max(1), 3, 1, 100_000);
                let page = limits.clamp("limit", a.limit, 10, 1, 100) as usize;
                let budget = limits.budget_bytes(a.max_tokens);
                let fp = fingerprint(&["communities", &min_size.to_string()]);
                let offset = Cursor::decode(&a.cursor, meta.generation, fp)?;
                let r = repo
                    .communities(min_size as usize, want(offset, page))
                    .map_err(engine_err)?;
                let items: Vec<CommunityOut> = r
                    .communities
                    .iter()
                    .map(|c| CommunityOut {
                        id: c.id,
                        size: c.size as u64,
                        label: c.label.clone(),
                        label_share: fin(c.label_share),
                        files: c.files as u64,
                        top_members: c.top_members.iter().map(RankedOut::from).collect(),
                        links: c
                            .links
                            .iter()
                            .map(|l| CommunityLinkOut {
                                community: l.community,
                                label: l.label.clone(),
                                edges: l.edges,
                            })
                            .collect(),
                        internal_edges: c.internal_edges,
                    })
                    .collect();
                meta.limits_applied = std::mem::take(&mut limits.applied);
                Ok(paged(
                    meta,
                    "communities",
                    fp,
                    offset,
                    page,
                    &items,
                    budget,
                    |communities| CommunitiesData {
                        count: r.count as u64,
                        eligible: r.eligible as u64,
                        min_size: r.min_size as u64,
                        modularity: fin(r.modularity),
                        levels: r.levels,
                        cached: r.cached,
                        compute_ms: fin(r.compute_ms),
                        communities,
                    },
                ))
            })
        })
        .await
    }

    #[tool(
        description = "Dependency cycles between files, directories (`module`) or functions (calls), largest first, with the edges that close them.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn cycles(
        &self,
        Parameters(a): Parameters<CyclesArgs>,
    ) -> Result<Json<Envelope<CyclesData>>, String> {
        self.blocking(&a.repo.clone(), move |b| {
            b.answer(|repo, meta| {
                let mut limits = Limits::default();
                let page = limits.clamp("limit", a.limit, 10, 1, 100) as usize;
                let budget = limits.budget_bytes(a.max_tokens);
                let level = a.level.as_str();
                let fp = fingerprint(&["cycles", level]);
                let offset = Cursor::decode(&a.cursor, meta.generation, fp)?;
                let r = repo.cycles(level, want(offset, page)).map_err(engine_err)?;
                let mut cut_members = false;
                let items: Vec<CycleOut> = r
                    .cycles
                    .iter()
                    .map(|c| {
                        cut_members |= c.members.len() > CYCLE_MEMBERS;
                        CycleOut {
                            size: c.size as u64,
                            members: c.members.iter().take(CYCLE_MEMBERS).cloned().collect(),
                            nodes: c
                                .nodes
                                .iter()
                                .take(CYCLE_MEMBERS)
                                .map(NodeOut::from)
                                .collect(),
                            edges: c
                                .edges
                                .iter()
                                .map(|e| CycleEdgeOut {
                                    from: e.from.clone(),
                                    to: e.to.clone(),
                                    count: e.count,
                                })
                                .collect(),
                        }
                    })
                    .collect();
                meta.limits_applied = std::mem::take(&mut limits.applied);
                let data = paged(meta, "cycles", fp, offset, page, &items, budget, |cycles| {
                    CyclesData {
                        level: r.level.to_string(),
                        edge_kinds: strings(&r.edge_kinds),
                        count: r.count as u64,
                        members_in_cycles: r.members_in_cycles as u64,
                        self_recursive: r.self_recursive as u64,
                        cycles,
                    }
                });
                if cut_members && data.cycles.iter().any(|c| c.size as usize > CYCLE_MEMBERS) {
                    meta.limits_applied.push(format!(
                        "members: at most {CYCLE_MEMBERS} listed per cycle (`size` has the count)"
                    ));
                }
                Ok(data)
            })
        })
        .await
    }

    #[tool(
        description = "Where execution starts: main functions, scripts, HTTP routes, CLI commands, framework handlers, configured rules, tests and public API, each with why.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn entry_points(
        &self,
        Parameters(a): Parameters<EntryPointsArgs>,
    ) -> Result<Json<Envelope<EntryPointsData>>, String> {
        self.blocking(&a.repo.clone(), move |b| {
            b.answer(|repo, meta| {
                let mut kinds: Vec<String> = Vec::new();
                for k in a.kind.iter().flat_map(|k| k.split(',')).map(str::trim) {
                    if k.is_empty() {
                        continue;
                    }
                    if !ENTRY_KINDS.contains(&k) {
                        return Err(format!(
                            "argument `kind`: unknown entry-point kind `{k}`; known kinds: {}",
                            ENTRY_KINDS.join(", ")
                        ));
                    }
                    kinds.push(k.to_string());
                }
                let mut limits = Limits::default();
                let page = limits.clamp("limit", a.limit, 50, 1, 500) as usize;
                let budget = limits.budget_bytes(a.max_tokens);
                let fp = fingerprint(&["entry_points", &kinds.join(",")]);
                let offset = Cursor::decode(&a.cursor, meta.generation, fp)?;
                let e = repo.entry_points(10_000).map_err(engine_err)?;
                let items: Vec<EntryPointOut> = e
                    .entries
                    .iter()
                    .filter(|x| kinds.is_empty() || kinds.iter().any(|k| k == x.kind))
                    .map(|x| EntryPointOut {
                        kind: x.kind.to_string(),
                        node: NodeOut::from(&x.node),
                        detail: x.detail.clone(),
                    })
                    .collect();
                let matching = if kinds.is_empty() {
                    e.total
                } else {
                    e.by_kind
                        .iter()
                        .filter(|(k, _)| kinds.contains(k))
                        .map(|(_, n)| *n as usize)
                        .sum()
                };
                meta.limits_applied = std::mem::take(&mut limits.applied);
                Ok(paged(
                    meta,
                    "entry_points",
                    fp,
                    offset,
                    page,
                    &items,
                    budget,
                    |entries| EntryPointsData {
                        total: e.total as u64,
                        matching: matching as u64,
                        by_kind: kind_counts(&e.by_kind),
                        entries,
                    },
                ))
            })
        })
        .await
    }

    #[tool(
        description = "Execution flows: the call tree an entry point (or any symbol) reaches through calls and instantiations, to `depth`; without `entry`, the program entry points ranked by how much they reach.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn flows(
        &self,
        Parameters(a): Parameters<FlowsArgs>,
    ) -> Result<Json<Envelope<FlowsData>>, String> {
        self.blocking(&a.repo.clone(), move |b| {
            b.answer(|repo, meta| {
                let mut limits = Limits::default();
                let depth = limits.clamp("depth", a.depth, 5, 1, 20);
                let page = limits.clamp("limit", a.limit, 100, 1, 1000) as usize;
                let budget = limits.budget_bytes(a.max_tokens);
                let entry = a.entry.trim();
                let fp = fingerprint(&["flows", entry, &depth.to_string()]);
                let offset = Cursor::decode(&a.cursor, meta.generation, fp)?;
                let f = repo
                    .flows(
                        (!entry.is_empty()).then_some(entry),
                        depth,
                        want(offset, page),
                    )
                    .map_err(entry_err)?;
                meta.limits_applied = std::mem::take(&mut limits.applied);
                let base = |steps: Vec<FlowStepOut>, flows: Vec<FlowSummaryOut>| FlowsData {
                    depth: f.depth,
                    edge_kinds: strings(&f.edge_kinds),
                    entry: f.entry.as_ref().map(NodeOut::from),
                    steps,
                    reached: f.reached as u64,
                    flows,
                    flows_total: f.flows_total as u64,
                };
                if f.entry.is_some() {
                    let items: Vec<FlowStepOut> = f
                        .steps
                        .iter()
                        .map(|s| FlowStepOut {
                            depth: s.depth,
                            node: NodeOut::from(&s.node),
                            parent: s.parent.clone(),
                            edge: s.edge.to_string(),
                        })
                        .collect();
                    Ok(paged(
                        meta,
                        "flows",
                        fp,
                        offset,
                        page,
                        &items,
                        budget,
                        |steps| base(steps, Vec::new()),
                    ))
                } else {
                    let items: Vec<FlowSummaryOut> = f
                        .flows
                        .iter()
                        .map(|s| FlowSummaryOut {
                            entry: NodeOut::from(&s.entry),
                            kind: s.kind.to_string(),
                            reached: s.reached as u64,
                            depth: s.depth,
                            files: s.files as u64,
                        })
                        .collect();
                    Ok(paged(
                        meta,
                        "flows",
                        fp,
                        offset,
                        page,
                        &items,
                        budget,
                        |flows| base(Vec::new(), flows),
                    ))
                }
            })
        })
        .await
    }

    #[tool(
        description = "Dead code: definitions no entry point reaches and nothing references. `dead` only when sure; `unknown` lists the undecided with the reason (dynamic dispatch, reflection, exports, decorators, same-name unresolved calls...).",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn dead_code(
        &self,
        Parameters(a): Parameters<DeadCodeArgs>,
    ) -> Result<Json<Envelope<DeadCodeData>>, String> {
        self.blocking(&a.repo.clone(), move |b| {
            b.answer(|repo, meta| {
                let kinds = check_kinds("kind", &a.kind, false)?;
                let mut limits = Limits::default();
                let page = limits.clamp("limit", a.limit, 50, 1, 500) as usize;
                let budget = limits
                    .budget_bytes(a.max_tokens)
                    .saturating_sub(META_RESERVE);
                let fp = fingerprint(&["dead_code", &kinds.join(","), &a.unknown.to_string()]);
                let offset = Cursor::decode(&a.cursor, meta.generation, fp)?;
                let d = repo
                    .dead_code(&kinds, want(offset, page))
                    .map_err(engine_err)?;
                let dead: Vec<DeadOut> = d.dead.iter().skip(offset).map(DeadOut::from).collect();
                let unknown: Vec<DeadOut> = if a.unknown {
                    d.unknown.iter().skip(offset).map(DeadOut::from).collect()
                } else {
                    Vec::new()
                };
                let build = |n: usize| DeadCodeData {
                    candidates: d.candidates as u64,
                    entry_points: d.entry_points as u64,
                    referenced: d.referenced as u64,
                    dead_count: d.dead_count as u64,
                    unknown_count: d.unknown_count as u64,
                    unknown_share: fin(d.unknown_share),
                    unknown_by_reason: kind_counts(&d.unknown_by_reason),
                    dead: dead.iter().take(n).cloned().collect(),
                    unknown: unknown.iter().take(n).cloned().collect(),
                    rules: DeadRulesOut {
                        live_decorators: d.rules.live_decorators.clone(),
                        live_names: d.rules.live_names.clone(),
                        live_paths: d.rules.live_paths.clone(),
                        exported_is_live: d.rules.exported_is_live,
                    },
                    config_file: d.config_file.clone(),
                };
                let take = dead.len().max(unknown.len()).min(page);
                let more = dead.len() > page || unknown.len() > page;
                let n = fit_count(take, budget, |n| json_len(&build(n)));
                page_meta(meta, "dead_code", fp, offset, n, more || n < take, n < take);
                meta.limit = Some(page as u32);
                meta.limits_applied = limits.applied;
                Ok(build(n))
            })
        })
        .await
    }

    #[tool(
        description = "Cyclomatic complexity: the most complex functions, and totals per file and per target (top-level directory, crate or package), optionally under a path.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn complexity(
        &self,
        Parameters(a): Parameters<ComplexityArgs>,
    ) -> Result<Json<Envelope<ComplexityData>>, String> {
        self.blocking(&a.repo.clone(), move |b| {
            b.answer(|repo, meta| {
                let mut limits = Limits::default();
                let page = limits.clamp("limit", a.limit, 20, 1, 200) as usize;
                let budget = limits
                    .budget_bytes(a.max_tokens)
                    .saturating_sub(META_RESERVE);
                let path = a.path.trim();
                let fp = fingerprint(&["complexity", path]);
                let offset = Cursor::decode(&a.cursor, meta.generation, fp)?;
                let c = repo
                    .complexity(want(offset, page), (!path.is_empty()).then_some(path))
                    .map_err(engine_err)?;
                let fns: Vec<ComplexFunctionOut> = c
                    .most_complex
                    .iter()
                    .skip(offset)
                    .map(|f| ComplexFunctionOut {
                        node: NodeOut::from(&f.node),
                        complexity: f.complexity,
                        lines: f.lines,
                    })
                    .collect();
                let first = offset == 0;
                let totals = |v: &[engine::ComplexityTotal], n: usize| -> Vec<ComplexityTotalOut> {
                    if first {
                        v.iter().take(n).map(ComplexityTotalOut::from).collect()
                    } else {
                        Vec::new()
                    }
                };
                let build = |n: usize| ComplexityData {
                    path: c.path_prefix.clone(),
                    functions: c.functions,
                    total: c.total,
                    mean: fin(c.mean),
                    most_complex: fns.iter().take(n).cloned().collect(),
                    files: totals(&c.files, n.max(1)),
                    targets: totals(&c.targets, n.max(1)),
                };
                let take = fns.len().min(page);
                let n = fit_count(take, budget, |n| json_len(&build(n)));
                page_meta(
                    meta,
                    "complexity",
                    fp,
                    offset,
                    n,
                    fns.len() > page || n < take,
                    n < take,
                );
                meta.limit = Some(page as u32);
                meta.limits_applied = limits.applied;
                if c.functions == 0 && !path.is_empty() {
                    meta.hint = Some(format!(
                        "no functions under `{path}`: pass a repository-relative directory or file (`overview` lists the areas)"
                    ));
                }
                Ok(build(n))
            })
        })
        .await
    }

    #[tool(
        description = "The architecture: module (directory) layers bottom-up, module dependency cycles, the most coupled modules, and hotspots (large × complex × central functions). Tests left out.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn architecture(
        &self,
        Parameters(a): Parameters<ArchitectureArgs>,
    ) -> Result<Json<Envelope<ArchitectureData>>, String> {
        self.blocking(&a.repo.clone(), move |b| {
            b.answer(|repo, meta| {
                let mut limits = Limits::default();
                let limit = limits.clamp("limit", a.limit, 20, 1, 100) as usize;
                let budget = limits
                    .budget_bytes(a.max_tokens)
                    .saturating_sub(META_RESERVE);
                let r = repo.architecture(limit).map_err(engine_err)?;
                // `n` entries per list; `members` modules per layer and per cycle (the engine
                // lists at most 50 per layer).
                let build = |n: usize, members: usize| ArchitectureData {
                    modules: r.modules as u64,
                    module_edges: r.module_edges as u64,
                    layers: r
                        .layers
                        .iter()
                        .map(|l| LayerOut {
                            level: l.level,
                            size: l.size as u64,
                            modules: l.modules.iter().take(members).cloned().collect(),
                        })
                        .collect(),
                    cycles: r
                        .cycles
                        .iter()
                        .take(n)
                        .map(|c| c.iter().take(members).cloned().collect())
                        .collect(),
                    coupled: r
                        .coupled
                        .iter()
                        .take(n)
                        .map(|c| CouplingOut {
                            module: c.module.clone(),
                            fan_in: c.fan_in,
                            fan_out: c.fan_out,
                            edges_in: c.edges_in,
                            edges_out: c.edges_out,
                        })
                        .collect(),
                    hotspots: r
                        .hotspots
                        .iter()
                        .take(n)
                        .map(|h| HotspotOut {
                            node: NodeOut::from(&h.node),
                            lines: h.lines,
                            complexity: h.complexity,
                            centrality: fin(h.centrality),
                            score: fin(h.score),
                        })
                        .collect(),
                    cached: r.cached,
                    compute_ms: fin(r.compute_ms),
                };
                let mut data = build(limit, CYCLE_MEMBERS);
                if json_len(&data) > budget {
                    let n = fit_count(limit, budget, |n| json_len(&build(n, n)));
                    data = build(n, n);
                    meta.truncated = true;
                    meta.hint = Some(format!(
                        "lists and layers cut to {n} entries to fit max_tokens: raise max_tokens for more"
                    ));
                }
                if r.cycles.iter().any(|c| c.len() > CYCLE_MEMBERS) {
                    limits.applied.push(format!(
                        "cycles: at most {CYCLE_MEMBERS} modules listed per cycle"
                    ));
                }
                meta.limit = Some(limit as u32);
                meta.limits_applied = limits.applied;
                Ok(data)
            })
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clauses_are_named_from_the_words_before_a_position() {
        let at = |q: &str, needle: &str| clause_at(q, q.find(needle).unwrap());
        let q = "MATCH (n:Function RETURN n";
        assert_eq!(at(q, "RETURN").as_deref(), Some("MATCH"));
        assert_eq!(at(q, ":Function").as_deref(), Some("MATCH"));
        assert_eq!(at("MATCH (n) RETURN n.x +", "+").as_deref(), Some("RETURN"));
        assert_eq!(
            at("MATCH (n) CREATE (m) RETURN n", "CREATE").as_deref(),
            Some("CREATE")
        );
        assert_eq!(
            at("OPTIONAL MATCH (n) RETURN n.x", "(n)").as_deref(),
            Some("OPTIONAL MATCH")
        );
        assert_eq!(
            at("MATCH (n) RETURN n ORDER BY n.nme", "n.nme").as_deref(),
            Some("ORDER BY")
        );
        // Properties, labels, keys, parameters, strings and comments are not clauses.
        assert_eq!(
            at(
                "MATCH (n:Limit {return: 'WITH'}) WHERE n.limit = $skip // RETURN\n AND x",
                "x"
            )
            .as_deref(),
            Some("WHERE")
        );
        assert_eq!(clause_at("FOO", 0), None);
        assert_eq!(clause_at("", 5), None);
        // Multi-byte text and offsets past the end never panic.
        assert_eq!(
            clause_at("MATCH (n {name: 'é'}) RETURN", 100).as_deref(),
            Some("RETURN")
        );
    }

    #[test]
    fn fit_count_finds_the_largest_prefix_within_the_budget() {
        assert_eq!(fit_count(0, 10, |n| n * 100), 0);
        assert_eq!(fit_count(10, 1000, |n| n * 10), 10);
        assert_eq!(fit_count(10, 55, |n| n * 10), 5);
        assert_eq!(fit_count(10, 5, |n| n * 10), 1, "at least one");
    }
}
