//! The server: the repository it answers for, the blocking pool and deadline every tool runs
//! under, the envelope, shared argument checks, and the handler that lists the chosen toolsets.
//! The tools themselves live in `crate::tools`.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::tool::ToolCallContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ContentBlock, Implementation, ServerCapabilities,
    ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, Json, RoleServer, ServerHandler, tool_handler};
use sextant_engine::{self as engine, Repo, Status, SymbolError};
use sextant_model::{EdgeKind, NodeKind};

use crate::args;
use crate::budget::Cursor;
use crate::dto::*;

/// A tool's answer: the envelope as structured content, or an error text (`isError`). Tool
/// methods spell it out: `#[tool]` finds the output schema in a literal `Result<Json<T>, E>`.
pub(crate) type Answer<T> = Result<Json<Envelope<T>>, String>;

/// How long one call may run before it answers "deadline exceeded".
const DEADLINE: Duration = Duration::from_secs(30);
/// Calls running at once (the 129th is refused as busy rather than queued without bound).
const MAX_IN_FLIGHT: usize = 128;
/// How long a status (HEAD, active generation) is reused between calls.
const STATUS_TTL: Duration = Duration::from_secs(1);
/// Open repositories kept for reuse (one per concurrent call).
const POOL: usize = 4;
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

pub(crate) fn engine_err(e: engine::Error) -> String {
    error_text(&e)
}

/// The repository the server answers for, its open handles and a short-lived status.
#[derive(Debug)]
pub(crate) struct Backend {
    pub(crate) root: PathBuf,
    pool: Mutex<Vec<Repo>>,
    status: Mutex<Option<(Instant, Status)>>,
    /// Tool calls running (on the blocking pool, including ones past their deadline).
    in_flight: AtomicUsize,
}

/// Counts one running call until dropped (also when the call outlives its deadline).
struct InFlight(Arc<Backend>);

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Backend {
    fn new(root: PathBuf) -> Backend {
        Backend {
            root,
            pool: Mutex::new(Vec::new()),
            status: Mutex::new(None),
            in_flight: AtomicUsize::new(0),
        }
    }

    /// The status, at most `STATUS_TTL` old.
    pub(crate) fn status(&self) -> Result<Status, String> {
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
    /// Forgets the cached status and open handles (after this server re-indexed).
    pub(crate) fn invalidate(&self) {
        if let Ok(mut s) = self.status.lock() {
            *s = None;
        }
        if let Ok(mut p) = self.pool.lock() {
            p.clear();
        }
    }

    pub(crate) fn answer<T: serde::Serialize>(
        &self,
        f: impl FnOnce(&Repo, &mut Meta) -> Result<T, String>,
    ) -> Result<Envelope<T>, String> {
        self.answer_in(&engine::ViewRequest::default(), f)
    }

    /// [`Backend::answer`] from the view `view` asks for (a workspace's generation, the committed
    /// baseline, virtual files); the pooled repository goes back to its own view afterwards.
    pub(crate) fn answer_in<T: serde::Serialize>(
        &self,
        view: &engine::ViewRequest,
        f: impl FnOnce(&Repo, &mut Meta) -> Result<T, String>,
    ) -> Result<Envelope<T>, String> {
        let started = Instant::now();
        let status = self.status()?;
        let Some(generation) = status.generation.filter(|_| status.indexed) else {
            return Err(engine_err(engine::Error::NotIndexed(
                self.root.display().to_string(),
            )));
        };
        let mut repo = self.checkout(generation)?;
        if !view.is_default()
            && let Err(e) = repo.apply_view(view)
        {
            repo.reset_view();
            self.checkin(repo);
            return Err(engine_err(e));
        }
        let v = repo.view().clone();
        let mut meta = Meta {
            repository: self.root.display().to_string(),
            generation: repo.generation(),
            graph_commit: status.graph_commit.clone(),
            repo_commit: status.repo_commit.clone(),
            stale: status.stale,
            populated: true,
            consistency: Some(v.consistency.as_str().to_string()),
            baseline_commit: v.baseline_commit.or_else(|| status.graph_commit.clone()),
            workspace: v.workspace,
            revision: v.revision,
            pending_sync: v.pending_sync,
            virtual_files: v.virtual_files,
            ..Meta::default()
        };
        if meta.workspace.is_some() || view.consistency == Some(engine::Consistency::Committed) {
            // The workspace (or the baseline) does not follow HEAD: it is as fresh as its base.
            meta.graph_commit = meta.baseline_commit.clone();
            meta.stale = meta.repo_commit.is_some() && meta.repo_commit != meta.graph_commit;
        }
        let query = Instant::now();
        let data = f(&repo, &mut meta);
        let db = query.elapsed();
        let data = match data {
            Ok(data) => data,
            Err(e) => {
                repo.reset_view();
                self.checkin(repo);
                return Err(e);
            }
        };
        let value = serde_json::to_value(&data).unwrap_or_default();
        let bytes = value.to_string().len() as u64;
        meta.result_bytes = bytes;
        meta.est_tokens = bytes.div_ceil(crate::budget::BYTES_PER_TOKEN);
        let mut sites = Vec::new();
        collect_sites(&value, &mut sites);
        let baseline = repo.reading_cost(&sites).unwrap_or(0);
        meta.tokens_saved =
            (baseline / crate::budget::BYTES_PER_TOKEN).saturating_sub(meta.est_tokens);
        meta.tokens_saved_total = repo.data.add_tokens_saved(meta.tokens_saved);
        repo.reset_view();
        self.checkin(repo);
        let total = started.elapsed();
        meta.timing = Timing {
            total_ms: ms(total),
            db_ms: ms(db),
            ranking_ms: ms(total.saturating_sub(db)),
        };
        Ok(Envelope { data, meta })
    }

    /// The envelope of an answer that does not come from an open index (`status`, `index`).
    pub(crate) fn plain_meta(&self, status: &Status, started: Instant, bytes: u64) -> Meta {
        let total = started.elapsed();
        Meta {
            repository: self.root.display().to_string(),
            generation: status.generation.unwrap_or(0),
            graph_commit: status.graph_commit.clone(),
            repo_commit: status.repo_commit.clone(),
            stale: status.stale,
            populated: status.indexed,
            result_bytes: bytes,
            est_tokens: bytes.div_ceil(crate::budget::BYTES_PER_TOKEN),
            tokens_saved_total: engine::DataDir::for_root(&self.root).add_tokens_saved(0),
            timing: Timing {
                total_ms: ms(total),
                db_ms: ms(total),
                ranking_ms: 0.0,
            },
            ..Meta::default()
        }
    }
}

/// Every `(path, line)` an answer names: objects with a `path` and a `line` or `start_line`.
fn collect_sites(value: &serde_json::Value, out: &mut Vec<(String, u32)>) {
    match value {
        serde_json::Value::Object(map) => {
            if let Some(path) = map.get("path").and_then(|p| p.as_str())
                && let Some(line) = map
                    .get("line")
                    .or_else(|| map.get("start_line"))
                    .and_then(|l| l.as_u64())
            {
                out.push((path.to_string(), line as u32));
            }
            for v in map.values() {
                collect_sites(v, out);
            }
        }
        serde_json::Value::Array(items) => {
            for v in items {
                collect_sites(v, out);
            }
        }
        _ => {}
    }
}

/// Sextant's MCP server for one repository.
#[derive(Debug, Clone)]
pub struct SextantServer {
    /// The repository the server was started for.
    pub(crate) backend: Arc<Backend>,
    /// Other indexed repositories named by a `repo` argument, opened on first use.
    others: Arc<Mutex<Vec<Arc<Backend>>>>,
    tool_router: ToolRouter<Self>,
}

impl SextantServer {
    /// A server answering for the repository at `root` (indexed or not yet).
    pub fn new(root: PathBuf) -> Self {
        Self::with_toolsets(root, &[&crate::toolsets::TOOLSETS[0]])
    }

    /// A server listing only the tools of `toolsets` (see [`crate::toolsets::parse`]).
    pub fn with_toolsets(root: PathBuf, toolsets: &[&crate::toolsets::Toolset]) -> Self {
        SextantServer {
            backend: Arc::new(Backend::new(root)),
            others: Arc::new(Mutex::new(Vec::new())),
            tool_router: crate::toolsets::router(toolsets),
        }
    }

    /// Runs a query on the blocking pool, within the deadline; a panic becomes a tool error.
    /// The backend of the repository a `repo` argument names: "" is the server's own; else a
    /// root path or a data-directory id of an indexed repository in the data home.
    pub(crate) fn backend_for(&self, repo: &str) -> Result<Arc<Backend>, String> {
        let repo = repo.trim();
        if repo.is_empty() {
            return Ok(self.backend.clone());
        }
        let known = engine::known_repositories(&engine::data_home());
        let wanted = std::path::Path::new(repo)
            .canonicalize()
            .unwrap_or_else(|_| PathBuf::from(repo));
        let Some(found) = known
            .iter()
            .find(|k| k.indexed && (k.id == repo || k.root == wanted))
        else {
            let list: Vec<String> = known
                .iter()
                .filter(|k| k.indexed)
                .map(|k| format!("{} ({})", k.id, k.root.display()))
                .collect();
            return Err(format!(
                "argument `repo`: `{repo}` is not an indexed repository; indexed: {}. Index it with `sextant index PATH`",
                if list.is_empty() {
                    "none".to_string()
                } else {
                    list.join(", ")
                }
            ));
        };
        if found.root == self.backend.root {
            return Ok(self.backend.clone());
        }
        let mut others = self
            .others
            .lock()
            .map_err(|_| "internal error: repository table poisoned".to_string())?;
        if let Some(b) = others.iter().find(|b| b.root == found.root) {
            return Ok(b.clone());
        }
        let b = Arc::new(Backend::new(found.root.clone()));
        others.push(b.clone());
        Ok(b)
    }

    pub(crate) async fn blocking<T, F>(&self, repo: &str, f: F) -> Answer<T>
    where
        T: serde::Serialize + Send + 'static,
        F: FnOnce(&Backend) -> Result<Envelope<T>, String> + Send + 'static,
    {
        let backend = self.backend_for(repo)?;
        let running = backend.in_flight.fetch_add(1, Ordering::AcqRel);
        let guard = InFlight(backend.clone());
        if running >= MAX_IN_FLIGHT {
            drop(guard);
            return Err(format!(
                "busy: {running} calls are already running on this server; retry when some have answered"
            ));
        }
        let task = tokio::task::spawn_blocking(move || {
            let _guard = guard;
            f(&backend)
        });
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
pub(crate) fn check_kinds(
    argument: &str,
    kinds: &[String],
    edges: bool,
) -> Result<Vec<String>, String> {
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
pub(crate) fn page_meta(
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

const INSTRUCTIONS: &str = "Sextant answers questions about one indexed repository from its code graph: where things are defined (`search`), what a symbol is (`symbol`), its source (`source`), who references it (`references`) and the call graph (`calls`). Prefer these tools over grep and reading whole files: answers are small, exact about which symbol they mean, and say in `meta` how fresh (`stale`) and complete (`completeness`) they are. Symbols are named by qualified name, plain name or the stable `id` of a previous answer. Long answers are cut to a token budget and say how to get the rest (`next_cursor`, `hint`). `status` tells whether the index is current; if a tool says the repository is not indexed, run `sextant index` on it.";

/// Added to the instructions when the analytics toolset is listed.
const ANALYTICS_INSTRUCTIONS: &str = " Whole-graph questions: `central` and `communities` for the shape of an unfamiliar codebase, `cycles`, `dead_code`, `complexity`, `architecture`, `entry_points` and `flows`; anything else with a read-only Cypher `query` (`schema` lists the labels, relationship types and properties).";

/// Added to the instructions when the workspace toolset is listed.
const WORKSPACE_INSTRUCTIONS: &str = " To keep another repository's answers following its working tree while you edit it, `watch` it (and `unwatch` it when done); `watched` lists the repositories kept fresh and when each was last updated. When several agents edit the same repository, each can keep its edits to itself in a named workspace: `workspace_create`, then `workspace_refresh` (with `files` for texts not written to disk), and pass `workspace` to the read tools (`consistency` committed for the clean index of the commit, ephemeral with `virtual_files` for unsaved texts); `workspace_list`, `workspace_reset`, `workspace_delete` manage them.";

#[tool_handler(router = self.tool_router)]
impl ServerHandler for SextantServer {
    fn get_info(&self) -> ServerConfig {
        let mut instructions = INSTRUCTIONS.to_string();
        if self.tool_router.has_route("query") {
            instructions.push_str(ANALYTICS_INSTRUCTIONS);
        }
        if self.tool_router.has_route("watch") {
            instructions.push_str(WORKSPACE_INSTRUCTIONS);
        }
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("sextant", env!("CARGO_PKG_VERSION")))
            .with_instructions(instructions)
    }

    /// Requests rmcp could not parse as any known method land here. A known method with
    /// unusable params (`tools/call` with `params: null` or without `name`) is invalid params
    /// (-32602), not an unknown method.
    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        const KNOWN: &[&str] = &[
            "initialize",
            "ping",
            "tools/list",
            "tools/call",
            "server/discover",
        ];
        if KNOWN.contains(&request.method.as_str()) {
            return Err(ErrorData::invalid_params(
                format!(
                    "invalid params for `{}`{}",
                    request.method,
                    if request.method == "tools/call" {
                        ": expected {\"name\": TOOL, \"arguments\": {...}}"
                    } else {
                        ""
                    }
                ),
                None,
            ));
        }
        Err(ErrorData::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            request.method,
            None,
        ))
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
