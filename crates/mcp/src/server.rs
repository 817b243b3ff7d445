//! The MCP tools: one method per tool, each a thin adapter from typed arguments to one engine
//! query (run on the blocking pool) and from its result to a bounded envelope.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ContentBlock, Implementation, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, Json, RoleServer, ServerHandler, tool, tool_handler, tool_router};
use schemars::JsonSchema;
use serde::Deserialize;
use sextant_engine::{self as engine, Repo, SearchOptions, Status, SymbolError};
use sextant_model::{EdgeKind, NodeKind};

use crate::args;
use crate::budget::{Cursor, Limits, fingerprint, fit, head_tail, json_len};
use crate::dto::*;

/// A tool's answer: the envelope as structured content, or an error text (`isError`). Tool
/// methods spell it out: `#[tool]` finds the output schema in a literal `Result<Json<T>, E>`.
type Answer<T> = Result<Json<Envelope<T>>, String>;

/// How long one call may run before it answers "deadline exceeded".
const DEADLINE: Duration = Duration::from_secs(30);
/// How long a status (HEAD, active generation) is reused between calls.
const STATUS_TTL: Duration = Duration::from_secs(1);
/// Open repositories kept for reuse (one per concurrent call).
const POOL: usize = 4;
/// At most this many members on a card.
const CARD_MEMBERS: usize = 50;
/// Longer source lines are cut.
const LINE_CAP: usize = 1000;
/// The engine's search answers at most this many results in all.
const SEARCH_CAP: usize = 1000;

const SYMBOL_DOC: &str = "A qualified name with any separator (`pkg.mod.Class`, `Type::method`; a suffix on whole segments is enough), a stable id (`sym_…`) from another answer, a file path, or a plain name. An ambiguous name answers with the candidates; an unknown one with the nearest names.";

fn default_search_limit() -> u32 {
    20
}
fn default_references_limit() -> u32 {
    50
}
fn default_calls_limit() -> u32 {
    20
}
fn default_depth() -> u32 {
    3
}
fn default_max_lines() -> u32 {
    120
}
fn default_max_tokens() -> u32 {
    crate::budget::DEFAULT_MAX_TOKENS
}

/// `search` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchArgs {
    /// A name (`UserStore`, `get_user`), a qualified name (`users.UserStore`) or words
    /// (`user id` finds `getUserById`).
    pub query: String,
    /// Only these kinds (class, struct, interface, trait, enum, function, method, constructor,
    /// field, property, constant, variable, module, type_alias, ...). Default: all but files.
    #[serde(default)]
    pub kind: Vec<String>,
    /// Only this language id (python, rust, typescript, tsx, javascript, go, java, c, cpp,
    /// csharp, ruby, php, kotlin, markdown). Default "": any.
    #[serde(default)]
    pub language: String,
    /// Only files under this repository-relative path prefix (`src/api/`). Default "": all.
    #[serde(default)]
    pub path: String,
    /// Results per page. Default 20, at most 100.
    #[serde(default = "default_search_limit")]
    pub limit: u32,
    /// `full` (signature, doc, visibility, modifiers, complexity) or `compact` (id, kind, names,
    /// location). Default `full`.
    #[serde(default)]
    pub mode: ListMode,
    /// `next_cursor` of the previous page. Default "": the first page.
    #[serde(default)]
    pub cursor: String,
    /// Answer budget in tokens (~4 bytes of JSON each); longer answers are cut and say so.
    /// Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

/// `symbol` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SymbolArgs {
    #[schemars(description = SYMBOL_DOC)]
    pub symbol: String,
    /// Answer budget in tokens. Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

/// `source` arguments: a `symbol`, or a `path` with a line range.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SourceArgs {
    /// The symbol whose definition to show (same syntax as the other tools). Give this or `path`.
    #[serde(default)]
    pub symbol: String,
    /// A repository-relative file path. Give this or `symbol`.
    #[serde(default)]
    pub path: String,
    /// With `path`: first line (1-based). Default 1.
    #[serde(default)]
    pub start_line: u32,
    /// With `path`: last line. Default 0: to the end of the file (within `max_lines`).
    #[serde(default)]
    pub end_line: u32,
    /// Extra lines before and after. Default 0, at most 50.
    #[serde(default)]
    pub context_lines: u32,
    /// At most this many lines are returned. Default 120, at most 400.
    #[serde(default = "default_max_lines")]
    pub max_lines: u32,
    /// `full`, `signature` (the declaration only; needs `symbol`) or `head_tail` (first 60% and
    /// last 40% of `max_lines` when longer). Default `full`.
    #[serde(default)]
    pub mode: SourceMode,
    /// Answer budget in tokens. Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

/// `references` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReferencesArgs {
    #[schemars(description = SYMBOL_DOC)]
    pub symbol: String,
    /// Only these edge kinds (calls, instantiates, uses_type, inherits, implements, imports,
    /// reads, writes, ...). Default: all.
    #[serde(default)]
    pub kind: Vec<String>,
    /// References per page. Default 50, at most 500.
    #[serde(default = "default_references_limit")]
    pub limit: u32,
    /// `next_cursor` of the previous page. Default "": the first page.
    #[serde(default)]
    pub cursor: String,
    /// Answer budget in tokens. Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

/// Which way `calls` walks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    /// Callers: who calls the symbol.
    #[default]
    In,
    /// Callees: what the symbol calls.
    Out,
}

/// `calls` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CallsArgs {
    #[schemars(description = SYMBOL_DOC)]
    pub symbol: String,
    /// `in` (callers) or `out` (callees). Default `in`.
    #[serde(default)]
    pub direction: Direction,
    /// How many calls away to go. Default 3, at most 6.
    #[serde(default = "default_depth")]
    pub depth: u32,
    /// At most this many symbols per level (the rest are not followed). Default 20, at most 100.
    #[serde(default = "default_calls_limit")]
    pub limit: u32,
    /// `next_cursor` of the previous page. Default "": the first page.
    #[serde(default)]
    pub cursor: String,
    /// Answer budget in tokens. Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

/// Why a tool call failed, as the text the client sees (`isError`).
fn error_text(e: &engine::Error) -> String {
    match e {
        engine::Error::Symbol(SymbolError::NotFound { suggestions, .. }) => {
            let tail = if suggestions.is_empty() {
                "No similar names either"
            } else {
                "Pass one of those names"
            };
            let end = if e.to_string().ends_with('?') {
                ""
            } else {
                "."
            };
            format!("{e}{end} {tail}, or use `search` to find symbols by name or words.")
        }
        engine::Error::Symbol(SymbolError::Ambiguous { candidates, .. }) => {
            let mut text = format!("{e}. Candidates (pass an id or a qualified name):");
            for c in candidates {
                text.push_str(&format!(
                    "\n- {} ({}) {}:{} id={}",
                    c.qualified_name, c.kind, c.path, c.start_line, c.stable_id
                ));
            }
            text
        }
        _ => e.to_string(),
    }
}

fn engine_err(e: engine::Error) -> String {
    error_text(&e)
}

/// The repository the server answers for, its open handles and a short-lived status.
#[derive(Debug)]
struct Backend {
    root: PathBuf,
    pool: Mutex<Vec<Repo>>,
    status: Mutex<Option<(Instant, Status)>>,
}

impl Backend {
    /// The status, at most `STATUS_TTL` old.
    fn status(&self) -> Result<Status, String> {
        if let Ok(cached) = self.status.lock()
            && let Some((at, status)) = cached.as_ref()
            && at.elapsed() < STATUS_TTL
        {
            return Ok(status.clone());
        }
        let status = engine::status(&self.root, 0).map_err(engine_err)?;
        if let Ok(mut cached) = self.status.lock() {
            *cached = Some((Instant::now(), status.clone()));
        }
        Ok(status)
    }

    /// An open repository on the active generation (reused when it still is).
    fn checkout(&self, generation: i64) -> Result<Repo, String> {
        if let Ok(mut pool) = self.pool.lock() {
            pool.retain(|r| r.generation() == generation);
            if let Some(repo) = pool.pop() {
                return Ok(repo);
            }
        }
        Repo::open(&self.root).map_err(engine_err)
    }

    fn checkin(&self, repo: Repo) {
        if let Ok(mut pool) = self.pool.lock()
            && pool.len() < POOL
        {
            pool.push(repo);
        }
    }

    /// Runs `f` on an open repository and wraps its data in the envelope.
    fn answer<T: serde::Serialize>(
        &self,
        f: impl FnOnce(&Repo, &mut Meta) -> Result<T, String>,
    ) -> Result<Envelope<T>, String> {
        let started = Instant::now();
        let status = self.status()?;
        let Some(generation) = status.generation.filter(|_| status.indexed) else {
            return Err(engine_err(engine::Error::NotIndexed(
                self.root.display().to_string(),
            )));
        };
        let repo = self.checkout(generation)?;
        let mut meta = Meta {
            repository: self.root.display().to_string(),
            generation: repo.generation(),
            commit: repo.commit().map_err(engine_err)?,
            stale: status.stale,
            ..Meta::default()
        };
        let data = f(&repo, &mut meta);
        self.checkin(repo);
        let data = data?;
        let bytes = json_len(&data) as u64;
        meta.result_bytes = bytes;
        meta.est_tokens = bytes.div_ceil(crate::budget::BYTES_PER_TOKEN);
        meta.elapsed_ms = (started.elapsed().as_secs_f64() * 1e5).round() / 100.0;
        Ok(Envelope { data, meta })
    }
}

/// Sextant's MCP server for one repository.
#[derive(Debug, Clone)]
pub struct SextantServer {
    backend: Arc<Backend>,
    tool_router: ToolRouter<Self>,
}

impl SextantServer {
    /// A server answering for the repository at `root` (indexed or not yet).
    pub fn new(root: PathBuf) -> Self {
        SextantServer {
            backend: Arc::new(Backend {
                root,
                pool: Mutex::new(Vec::new()),
                status: Mutex::new(None),
            }),
            tool_router: Self::tool_router(),
        }
    }

    /// Runs a query on the blocking pool, within the deadline; a panic becomes a tool error.
    async fn blocking<T, F>(&self, f: F) -> Answer<T>
    where
        T: serde::Serialize + Send + 'static,
        F: FnOnce(&Backend) -> Result<Envelope<T>, String> + Send + 'static,
    {
        let backend = self.backend.clone();
        let task = tokio::task::spawn_blocking(move || f(&backend));
        match tokio::time::timeout(DEADLINE, task).await {
            Ok(Ok(result)) => result.map(Json),
            Ok(Err(join)) => {
                tracing::error!("a tool call failed: {join}");
                Err("internal error: the query failed unexpectedly (the server keeps serving); please report it".to_string())
            }
            Err(_) => Err(format!(
                "deadline exceeded ({} s): narrow the query (a smaller depth, limit or range)",
                DEADLINE.as_secs()
            )),
        }
    }
}

/// Checks kind names against the graph's closed sets.
fn check_kinds(argument: &str, kinds: &[String], edges: bool) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for k in kinds.iter().flat_map(|k| k.split(',')) {
        let k = k.trim();
        if k.is_empty() {
            continue;
        }
        let known = if edges {
            EdgeKind::parse(k).is_some()
        } else {
            NodeKind::parse(k).is_some()
        };
        if !known {
            let all: Vec<&str> = if edges {
                EdgeKind::ALL.iter().map(|k| k.as_str()).collect()
            } else {
                NodeKind::ALL.iter().map(|k| k.as_str()).collect()
            };
            return Err(format!(
                "argument `{argument}`: unknown kind `{k}`; known kinds: {}",
                all.join(", ")
            ));
        }
        out.push(k.to_string());
    }
    Ok(out)
}

/// Fills paging fields of `meta` after a page of `shown` items starting at `offset`.
fn page_meta(
    meta: &mut Meta,
    tool: &str,
    query: u64,
    offset: usize,
    shown: usize,
    more: bool,
    cut_by_budget: bool,
) {
    if more || cut_by_budget {
        meta.truncated = true;
        meta.next_cursor = Some(
            Cursor {
                generation: meta.generation,
                offset: offset + shown,
                query,
            }
            .encode(),
        );
        let mut hint = format!(
            "more results: call `{tool}` again with the same arguments and cursor = next_cursor"
        );
        if cut_by_budget {
            hint.push_str(
                "; this page was cut to the max_tokens budget (raise max_tokens, lower limit, or use compact mode where offered)",
            );
        }
        meta.hint = Some(hint);
    }
}

#[tool_router]
impl SextantServer {
    #[tool(
        description = "Find definitions (classes, functions, methods, fields, modules, doc sections) by name or words: exact name first, then prefix, then full text over split identifiers, signatures and docs. Use it instead of grep to locate where something is defined; filter by kind, language and path; page with `cursor`.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn search(
        &self,
        Parameters(a): Parameters<SearchArgs>,
    ) -> Result<Json<Envelope<SearchData>>, String> {
        self.blocking(move |b| {
            b.answer(|repo, meta| {
                let query = a.query.trim().to_string();
                if query.is_empty() {
                    return Err("argument `query` must not be empty".into());
                }
                let kinds = check_kinds("kind", &a.kind, false)?;
                let mut limits = Limits::default();
                let limit = limits.clamp("limit", a.limit, 20, 1, 100) as usize;
                let budget = limits.budget_bytes(a.max_tokens);
                let mode = match a.mode {
                    ListMode::Full => "full",
                    ListMode::Compact => "compact",
                };
                let fp = fingerprint(&[
                    "search",
                    &query,
                    &kinds.join(","),
                    &a.language,
                    &a.path,
                    mode,
                ]);
                let offset = Cursor::decode(&a.cursor, meta.generation, fp)?;
                let want = (offset + limit + 1).min(SEARCH_CAP);
                let options = SearchOptions {
                    kinds,
                    language: Some(a.language.trim().to_string()).filter(|l| !l.is_empty()),
                    path_prefix: Some(a.path.trim().to_string()).filter(|p| !p.is_empty()),
                    limit: want as u32,
                };
                let hits = repo.search(&query, &options).map_err(engine_err)?;
                let more = hits.len() > offset + limit;
                let mut results: Vec<SearchHitOut> = hits
                    .iter()
                    .skip(offset)
                    .take(limit)
                    .map(|h| SearchHitOut {
                        matched: h.matched.to_string(),
                        symbol: SymbolOut::with_mode(&h.symbol, a.mode),
                    })
                    .collect();
                let cut = fit(&mut results, 256 + query.len(), budget);
                page_meta(meta, "search", fp, offset, results.len(), more, cut);
                meta.limit = Some(limit as u32);
                meta.limits_applied = limits.applied;
                Ok(SearchData {
                    query,
                    count: results.len() as u64,
                    results,
                })
            })
        })
        .await
    }

    #[tool(
        description = "The card of one symbol: signature, doc, location, visibility, modifiers, complexity, parent, members, counts of incoming and outgoing edges by kind, top callers and callees. Use it instead of opening files to learn what something is and how connected it is.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn symbol(
        &self,
        Parameters(a): Parameters<SymbolArgs>,
    ) -> Result<Json<Envelope<CardData>>, String> {
        self.blocking(move |b| {
            b.answer(|repo, meta| {
                let mut limits = Limits::default();
                let budget = limits.budget_bytes(a.max_tokens);
                let s = repo.resolve_symbol(&a.symbol).map_err(engine_err)?;
                let card = repo.card(&s).map_err(engine_err)?;
                let members_total = card.members.len();
                let mut members: Vec<SymbolOut> = card
                    .members
                    .iter()
                    .take(CARD_MEMBERS)
                    .map(SymbolOut::compact)
                    .collect();
                let mut data = CardData {
                    symbol: SymbolOut::full(&card.symbol),
                    parent: card.parent.as_ref().map(SymbolOut::compact),
                    members_total: members_total as u64,
                    members: Vec::new(),
                    incoming: kind_counts(&card.incoming),
                    outgoing: kind_counts(&card.outgoing),
                    callers: card.callers.iter().map(NeighborOut::from).collect(),
                    callees: card.callees.iter().map(NeighborOut::from).collect(),
                };
                let cut = fit(&mut members, json_len(&data), budget);
                if cut || members.len() < members_total {
                    meta.truncated = true;
                    meta.hint = Some(format!(
                        "{} of {members_total} members shown: list them with `search` (path = \"{}\", and a kind filter)",
                        members.len(),
                        card.symbol.path
                    ));
                }
                data.members = members;
                meta.limits_applied = limits.applied;
                Ok(data)
            })
        })
        .await
    }

    #[tool(
        description = "Source of a symbol's definition (`symbol`), or lines of a repository file (`path`, `start_line`, `end_line`), with `context_lines`. Use it instead of reading whole files: `mode` signature or head_tail and `max_lines` keep answers small. Paths outside the repository and secret files are refused.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn source(
        &self,
        Parameters(a): Parameters<SourceArgs>,
    ) -> Result<Json<Envelope<SourceData>>, String> {
        self.blocking(move |b| b.answer(|repo, meta| source(repo, meta, a)))
            .await
    }

    #[tool(
        description = "Every resolved reference to a symbol (calls, instantiations, type uses, inheritance, implementations, imports, ...) with its site and how it was resolved (provenance, rule), plus completeness. Use it instead of grepping for a name: same-named symbols are not confused, and it says when unresolved sites could add more.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn references(
        &self,
        Parameters(a): Parameters<ReferencesArgs>,
    ) -> Result<Json<Envelope<ReferencesData>>, String> {
        self.blocking(move |b| {
            b.answer(|repo, meta| {
                let kinds = check_kinds("kind", &a.kind, true)?;
                let mut limits = Limits::default();
                let limit = limits.clamp("limit", a.limit, 50, 1, 500) as usize;
                let budget = limits.budget_bytes(a.max_tokens);
                let s = repo.resolve_symbol(&a.symbol).map_err(engine_err)?;
                let fp = fingerprint(&["references", &s.stable_id, &kinds.join(",")]);
                let offset = Cursor::decode(&a.cursor, meta.generation, fp)?;
                let refs = repo.references(&s, &kinds).map_err(engine_err)?;
                let total = refs.references.len();
                let mut page: Vec<NeighborOut> = refs
                    .references
                    .iter()
                    .skip(offset)
                    .take(limit)
                    .map(NeighborOut::from)
                    .collect();
                let more = total > offset + page.len();
                let symbol = SymbolOut::compact(&refs.target);
                let completeness = CompletenessOut::from(&refs.completeness);
                let cut = fit(
                    &mut page,
                    json_len(&symbol) + json_len(&completeness) + 256,
                    budget,
                );
                let more = more || cut;
                page_meta(meta, "references", fp, offset, page.len(), more, cut);
                meta.completeness = Some(completeness);
                meta.limit = Some(limit as u32);
                meta.limits_applied = limits.applied;
                Ok(ReferencesData {
                    symbol,
                    total: total as u64,
                    references: page,
                })
            })
        })
        .await
    }

    #[tool(
        description = "Callers (`direction` in) or callees (`direction` out) of a function or method, breadth first to `depth`, cycle-safe, at most `limit` per level, with completeness. Use it instead of grepping for call sites.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn calls(
        &self,
        Parameters(a): Parameters<CallsArgs>,
    ) -> Result<Json<Envelope<CallsData>>, String> {
        self.blocking(move |b| {
            b.answer(|repo, meta| {
                let mut limits = Limits::default();
                let depth = limits.clamp("depth", a.depth, 3, 1, 6);
                let per_level = limits.clamp("limit", a.limit, 20, 1, 100);
                let budget = limits.budget_bytes(a.max_tokens);
                let s = repo.resolve_symbol(&a.symbol).map_err(engine_err)?;
                let incoming = a.direction == Direction::In;
                let direction = if incoming { "in" } else { "out" };
                let fp = fingerprint(&[
                    "calls",
                    &s.stable_id,
                    direction,
                    &depth.to_string(),
                    &per_level.to_string(),
                ]);
                let offset = Cursor::decode(&a.cursor, meta.generation, fp)?;
                let graph = repo
                    .calls(&s, incoming, depth, per_level)
                    .map_err(engine_err)?;
                let mut ids: std::collections::HashMap<i64, String> =
                    std::collections::HashMap::from([(graph.root.id, graph.root.stable_id.clone())]);
                for step in &graph.steps {
                    ids.insert(step.neighbor.symbol.id, step.neighbor.symbol.stable_id.clone());
                }
                let total = graph.steps.len();
                let mut page: Vec<CallStepOut> = graph
                    .steps
                    .iter()
                    .skip(offset)
                    .map(|step| CallStepOut {
                        depth: step.depth,
                        from: ids.get(&step.from).cloned().unwrap_or_default(),
                        neighbor: NeighborOut::from(&step.neighbor),
                    })
                    .collect();
                let symbol = SymbolOut::compact(&graph.root);
                let completeness = CompletenessOut::from(&graph.completeness);
                let cut = fit(
                    &mut page,
                    json_len(&symbol) + json_len(&completeness) + 256,
                    budget,
                );
                page_meta(meta, "calls", fp, offset, page.len(), false, cut);
                if graph.truncated {
                    meta.truncated = true;
                    let note = format!(
                        "some level had more than {per_level} symbols and the rest were not followed: raise `limit` (at most 100)"
                    );
                    meta.hint = Some(match meta.hint.take() {
                        Some(h) => format!("{h}; {note}"),
                        None => note,
                    });
                }
                meta.completeness = Some(completeness);
                meta.limit = Some(per_level);
                meta.limits_applied = limits.applied;
                Ok(CallsData {
                    symbol,
                    direction: direction.to_string(),
                    depth: graph.depth,
                    total: total as u64,
                    level_limit_reached: graph.truncated,
                    steps: page,
                })
            })
        })
        .await
    }

    #[tool(
        description = "Index status of the repository: commit indexed vs HEAD (`stale`), files, languages, skipped files by reason. Call it when answers look out of date or a tool says the repository is not indexed.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn status(&self) -> Result<Json<Envelope<StatusData>>, String> {
        self.blocking(|b| {
            let started = Instant::now();
            let status = engine::status(&b.root, 20).map_err(engine_err)?;
            let data = StatusData::from(&status);
            let bytes = json_len(&data) as u64;
            let meta = Meta {
                repository: b.root.display().to_string(),
                generation: status.generation.unwrap_or(0),
                commit: status.graph_commit.clone(),
                stale: status.stale,
                result_bytes: bytes,
                est_tokens: bytes.div_ceil(crate::budget::BYTES_PER_TOKEN),
                elapsed_ms: (started.elapsed().as_secs_f64() * 1e5).round() / 100.0,
                ..Meta::default()
            };
            Ok(Envelope { data, meta })
        })
        .await
    }
}

/// `source`: a symbol's definition or a line range, cut to `max_lines` and the budget.
fn source(repo: &Repo, meta: &mut Meta, a: SourceArgs) -> Result<SourceData, String> {
    let mut limits = Limits::default();
    let max_lines = limits.clamp("max_lines", a.max_lines, 120, 1, 400) as usize;
    let context = if a.context_lines > 50 {
        limits.applied.push(format!(
            "context_lines: {} exceeds the hard cap, 50 used",
            a.context_lines
        ));
        50
    } else {
        a.context_lines
    };
    let budget = limits.budget_bytes(a.max_tokens);
    let symbol_arg = a.symbol.trim();
    let path_arg = a.path.trim();
    let span = match (symbol_arg.is_empty(), path_arg.is_empty()) {
        (true, true) => return Err("give `symbol` or `path`".into()),
        (false, false) => return Err("give `symbol` or `path`, not both".into()),
        (false, true) => {
            let s = repo.resolve_symbol(symbol_arg).map_err(engine_err)?;
            if a.mode == SourceMode::Signature {
                let text = if s.signature.is_empty() {
                    s.name.clone()
                } else {
                    s.signature.clone()
                };
                let lines = text.lines().count().max(1) as u32;
                meta.limits_applied = limits.applied;
                return Ok(SourceData {
                    path: s.path.clone(),
                    start_line: s.start_line,
                    end_line: s.start_line + lines - 1,
                    mode: a.mode,
                    text,
                    file_changed: false,
                    omitted: None,
                    symbol: Some(SymbolOut::full(&s)),
                });
            }
            repo.source_of(&s, context).map_err(engine_err)?
        }
        (true, false) => {
            if a.mode == SourceMode::Signature {
                return Err(
                    "mode `signature` needs `symbol` (a file range has no single signature)".into(),
                );
            }
            let start = a.start_line.max(1);
            let end = if a.end_line == 0 {
                u32::MAX - context
            } else if a.end_line < start {
                return Err(format!(
                    "argument `end_line` ({}) is before `start_line` ({start})",
                    a.end_line
                ));
            } else {
                a.end_line
            };
            repo.source_range(path_arg, start, end, context)
                .map_err(engine_err)?
        }
    };
    let lines: Vec<&str> = span.text.lines().collect();
    let first = span.start_line;
    // Very long lines (minified or generated code) are cut so `max_lines` bounds the size.
    let mut long_lines = 0usize;
    let mut cap = |l: &str| -> String {
        if l.len() <= LINE_CAP {
            return l.to_string();
        }
        long_lines += 1;
        let mut cut = LINE_CAP;
        while !l.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}… [{} more bytes]", &l[..cut], l.len() - cut)
    };
    let mut omitted = None;
    let mut shown: Vec<String> = Vec::new();
    let mut end_line = span.end_line;
    let mut rest_from = None;
    let split = match a.mode {
        SourceMode::HeadTail => head_tail(&lines, max_lines),
        _ => None,
    };
    let overhead = 512 + span.path.len();
    // JSON size of the text: escapes (quotes, backslashes, control characters) count.
    let size_of = |shown: &[String]| -> usize { shown.iter().map(|l| json_len(l) - 1).sum() };
    if let Some((head, tail_from)) = split {
        let skip_start = first + head as u32;
        let skip_end = first + tail_from as u32 - 1;
        shown.extend(lines[..head].iter().map(|l| cap(l)));
        shown.push(format!(
            "… {} lines omitted ({skip_start}-{skip_end}) …",
            skip_end - skip_start + 1
        ));
        shown.extend(lines[tail_from..].iter().map(|l| cap(l)));
        omitted = Some(LineRange {
            start_line: skip_start,
            end_line: skip_end,
        });
        meta.truncated = true;
        if size_of(&shown) + overhead > budget {
            // Over budget even so: fall back to the head alone, cut below.
            shown.clear();
            omitted = None;
        }
    }
    if shown.is_empty() {
        shown.extend(lines.iter().take(max_lines).map(|l| cap(l)));
        if lines.len() > max_lines {
            end_line = first + max_lines as u32 - 1;
            rest_from = Some(end_line + 1);
        }
    }
    // The byte budget: drop trailing lines.
    if omitted.is_none() {
        let mut size = size_of(&shown);
        if size + overhead > budget {
            while shown.len() > 1 && size + overhead > budget {
                if let Some(l) = shown.pop() {
                    size -= json_len(&l) - 1;
                }
            }
            end_line = first + shown.len() as u32 - 1;
            rest_from = Some(end_line + 1);
        }
    }
    if long_lines > 0 {
        meta.truncated = true;
        limits.applied.push(format!(
            "{long_lines} lines longer than {LINE_CAP} bytes were cut"
        ));
    }
    if let Some(from) = rest_from {
        meta.truncated = true;
        meta.hint = Some(format!(
            "lines {first}-{end_line} shown: call `source` with path = \"{}\" and start_line = {from} for more, or raise max_lines / max_tokens, or use mode head_tail",
            span.path
        ));
    } else if omitted.is_some() {
        meta.hint = Some(format!(
            "the middle was left out: call `source` with path = \"{}\" and start_line/end_line for it",
            span.path
        ));
    }
    meta.limits_applied = limits.applied;
    Ok(SourceData {
        path: span.path.clone(),
        start_line: first,
        end_line: end_line.max(first),
        mode: a.mode,
        text: shown.join("\n"),
        file_changed: span.stale,
        omitted,
        symbol: span.symbol.as_ref().map(SymbolOut::full),
    })
}

const INSTRUCTIONS: &str = "Sextant answers questions about one indexed repository from its code graph: where things are defined (`search`), what a symbol is (`symbol`), its source (`source`), who references it (`references`) and the call graph (`calls`). Prefer these tools over grep and reading whole files: answers are small, exact about which symbol they mean, and say in `meta` how fresh (`stale`) and complete (`completeness`) they are. Symbols are named by qualified name, plain name or the stable `id` of a previous answer. Long answers are cut to a token budget and say how to get the rest (`next_cursor`, `hint`). `status` tells whether the index is current; if a tool says the repository is not indexed, run `sextant index` on it.";

#[tool_handler(router = self.tool_router)]
impl ServerHandler for SextantServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("sextant", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let name = request.name.to_string();
        let arguments = request.arguments.clone().unwrap_or_default();
        let call = ToolCallContext::new(self, request, context);
        let mut response = self.tool_router.call(call).await?;
        // Arguments that did not deserialize: name the argument and what it must be.
        if let CallToolResponse::Complete(result) = &mut response
            && result.is_error == Some(true)
            && let Some(text) = result.content.first().and_then(|c| c.as_text())
            && text.text.starts_with("failed to deserialize parameters")
            && let Some(tool) = self.tool_router.get(&name)
        {
            let why = args::explain(&tool.input_schema, &arguments)
                .map(|w| format!("{w} ({})", text.text))
                .unwrap_or_else(|| text.text.clone());
            result.content = vec![ContentBlock::text(format!(
                "invalid arguments for `{name}`: {why}"
            ))];
        }
        Ok(response)
    }
}
