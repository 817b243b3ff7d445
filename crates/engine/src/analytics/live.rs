//! Entry points, flows and dead code: what starts execution, what an entry point reaches, and
//! which definitions nothing uses. Dead code is said only when the rules are sure; anything the
//! graph cannot decide (a same-name unresolved reference, a dunder, an override, a subclass, a
//! decorator, an export, reflection nearby) is `unknown`, never `dead`. Liveness rules can be
//! added per repository in `<repo>/.sextant.toml`:
//!
//! ```toml
//! [dead_code]
//! live_decorators = ["app.task", "*.hook"]   # decorated symbols are entry points
//! live_names = ["handle_*", "myapp.plugins.*"] # names or qualified names (globs)
//! live_paths = ["scripts/**"]                # everything under these paths is live
//! exported_is_live = true                    # public API counts as used (default)
//! ```

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};
use sextant_graph::algo::{self, EdgeFilter};
use sextant_graph::{EdgeKind, Graph, Ix, NodeKind};

use super::{Loaded, NodeRef, dir_of, node_ref, parse_kinds};
use crate::graph::{is_entry_point, is_public_api, is_test_path, is_test_symbol};
use crate::query::{Repo, interoperating};
use crate::types::Symbol;
use crate::{Error, Result};

/// `<repo>/.sextant.toml`: per-repository settings (sections other features do not know are
/// ignored).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
pub struct RepoConfig {
    #[serde(default)]
    pub dead_code: DeadCodeConfig,
}

/// `[dead_code]`: extra liveness rules.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct DeadCodeConfig {
    /// Decorators (name without `@` and arguments, globs: `app.task`, `*.hook`) that make the
    /// decorated symbol an entry point.
    pub live_decorators: Vec<String>,
    /// Names or qualified names (globs) that are always live.
    pub live_names: Vec<String>,
    /// Paths (globs: `scripts/**`) whose definitions are always live.
    pub live_paths: Vec<String>,
    /// Public API (public top-level definitions and public members of public types) counts as
    /// used from outside the repository. Turn off for applications to find unused public code.
    pub exported_is_live: bool,
}

impl Default for DeadCodeConfig {
    fn default() -> Self {
        DeadCodeConfig {
            live_decorators: Vec::new(),
            live_names: Vec::new(),
            live_paths: Vec::new(),
            exported_is_live: true,
        }
    }
}

/// The repository configuration file.
pub fn repo_config_path(root: &Path) -> std::path::PathBuf {
    root.join(".sextant.toml")
}

/// Reads `<root>/.sextant.toml` (defaults when there is none); errors name the file.
pub fn load_repo_config(root: &Path) -> Result<RepoConfig> {
    let path = repo_config_path(root);
    match crate::home::read_config_text(&path)? {
        Some(text) => toml::from_str(&text)
            .map_err(|e| Error::InvalidArgument(format!("{}: {}", path.display(), e.message()))),
        None => Ok(RepoConfig::default()),
    }
}

/// One entry point.
#[derive(Debug, Clone, Serialize)]
pub struct EntryPointItem {
    /// `main`, `script`, `package_main`, `route`, `cli`, `handler`, `configured`, `test`,
    /// `public_api`.
    pub kind: &'static str,
    pub node: NodeRef,
    /// Why: the decorator, `urls.py`, the matching rule.
    pub detail: Option<String>,
}

/// Where execution starts.
#[derive(Debug, Clone, Serialize)]
pub struct EntryPoints {
    pub generation: i64,
    pub total: usize,
    /// (kind, count), in the order kinds are listed.
    pub by_kind: Vec<(String, u64)>,
    /// Programs first (main, scripts, routes, CLI commands, handlers), then tests and public API.
    pub entries: Vec<EntryPointItem>,
}

/// One entry point's reach.
#[derive(Debug, Clone, Serialize)]
pub struct FlowSummary {
    pub entry: NodeRef,
    pub kind: &'static str,
    /// Symbols reached through calls and instantiations (the entry included).
    pub reached: usize,
    /// Deepest level reached (at most the depth asked for).
    pub depth: u32,
    pub files: usize,
}

/// One symbol of a call tree.
#[derive(Debug, Clone, Serialize)]
pub struct FlowStep {
    pub depth: u32,
    pub node: NodeRef,
    /// The stable id of the symbol it is reached from.
    pub parent: Option<String>,
    /// `calls`, `instantiates`, or `contains` (a method of an entry class).
    pub edge: &'static str,
}

/// Flows: the entry points with their reach, or the call tree of one.
#[derive(Debug, Clone, Serialize)]
pub struct Flows {
    pub generation: i64,
    pub depth: u32,
    pub edge_kinds: Vec<&'static str>,
    /// The entry whose tree `steps` is (none when listing).
    pub entry: Option<NodeRef>,
    /// Depth-first, each step after its parent.
    pub steps: Vec<FlowStep>,
    /// Symbols reached (the tree may be cut at the limit).
    pub reached: usize,
    pub truncated: bool,
    /// Entry points by reach, most first (when no entry was named).
    pub flows: Vec<FlowSummary>,
    /// Entry points that could be listed.
    pub flows_total: usize,
}

/// A definition nothing uses, or one that cannot be decided.
#[derive(Debug, Clone, Serialize)]
pub struct DeadItem {
    pub node: NodeRef,
    /// `dead` or `unknown`.
    pub status: &'static str,
    /// Why it is unknown (`vendored`, `dunder`, `unresolved_reference`, `override`,
    /// `polymorphic`, `subclass`, `external_base`, `decorated`, `exported`, `reflection`,
    /// `rebound`, `script_global`, `nested`, `mentioned`), or `unreferenced`.
    pub reason: &'static str,
    pub detail: Option<String>,
    pub lines: u32,
}

/// Dead code with the share that could not be decided.
#[derive(Debug, Clone, Serialize)]
pub struct DeadCode {
    pub generation: i64,
    /// Callables and types considered.
    pub candidates: usize,
    /// Entry points among them.
    pub entry_points: usize,
    /// With an incoming dependency edge (from anything but themselves).
    pub referenced: usize,
    pub dead_count: usize,
    pub unknown_count: usize,
    /// unknown / (dead + unknown): how much of the unreferenced code could not be decided.
    pub unknown_share: f64,
    pub unknown_by_reason: Vec<(String, u64)>,
    /// By path and line.
    pub dead: Vec<DeadItem>,
    /// A sample of the undecided, by path and line.
    pub unknown: Vec<DeadItem>,
    pub rules: DeadCodeConfig,
    /// The configuration file, when there is one.
    pub config_file: Option<String>,
}

// ---- decorators ----

/// Decorator names of a modifiers string (`@app.route("/x", methods=["GET"])` → `app.route`):
/// the comma-separated list is split only outside brackets and quotes.
pub(crate) fn decorators(modifiers: &str) -> Vec<String> {
    let mut items: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut depth = 0i32;
    let mut quote: Option<char> = None;
    for c in modifiers.chars() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            cur.push(c);
            continue;
        }
        match c {
            '"' | '\'' => {
                quote = Some(c);
                cur.push(c);
            }
            '(' | '[' | '{' => {
                depth += 1;
                cur.push(c);
            }
            ')' | ']' | '}' => {
                depth -= 1;
                cur.push(c);
            }
            ',' if depth <= 0 => items.push(std::mem::take(&mut cur)),
            _ => cur.push(c),
        }
    }
    items.push(cur);
    items
        .into_iter()
        .filter_map(|m| {
            let m = m.trim().strip_prefix('@')?;
            let m = m.trim_start_matches('[').trim();
            let end = m.find(['(', ']', ' ']).unwrap_or(m.len());
            let name = m[..end].trim();
            (!name.is_empty()).then(|| name.to_string())
        })
        .collect()
}

/// What a decorator says about the decorated symbol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Route,
    Cli,
    Handler,
    /// Changes nothing about who calls it (`staticmethod`, `property`, `wraps`, ...).
    Inert,
    /// Unknown: may register the symbol somewhere.
    Other,
}

fn decorator_role(name: &str) -> Role {
    let last = name.rsplit('.').next().unwrap_or(name);
    let receiver = name.contains('.');
    const HTTP: &[&str] = &[
        "get",
        "post",
        "put",
        "delete",
        "patch",
        "head",
        "options",
        "websocket",
        "route",
        "api_route",
    ];
    const ROUTE_NAMES: &[&str] = &[
        "api_view",
        "require_http_methods",
        "require_GET",
        "require_POST",
        "require_safe",
        "GetMapping",
        "PostMapping",
        "PutMapping",
        "DeleteMapping",
        "PatchMapping",
        "RequestMapping",
        "HttpGet",
        "HttpPost",
        "HttpPut",
        "HttpDelete",
        "HttpPatch",
        "Route",
        "Get",
        "Post",
        "Put",
        "Delete",
        "Patch",
        "GET",
        "POST",
        "PUT",
        "DELETE",
        "PATCH",
    ];
    const HANDLERS: &[&str] = &[
        "action",
        "task",
        "shared_task",
        "periodic_task",
        "receiver",
        "fixture",
        "hookimpl",
        "hookspec",
        "on_event",
        "on_message",
        "middleware",
        "errorhandler",
        "exception_handler",
        "before_request",
        "after_request",
        "before_app_request",
        "teardown_request",
        "teardown_appcontext",
        "context_processor",
        "template_filter",
        "template_global",
        "template_test",
        "filter",
        "simple_tag",
        "inclusion_tag",
        "tag",
        "register",
        "listener",
        "listens_for",
        "subscriber",
        "handler",
        "job",
        "EventListener",
        "Scheduled",
        "Bean",
        "PostConstruct",
        "Component",
        "Service",
        "Controller",
        "RestController",
        "Repository",
        "Configuration",
        "Injectable",
        "Subscribe",
        "KafkaListener",
        "RabbitListener",
        "JmsListener",
        "Test",
        "ParameterizedTest",
        "BeforeEach",
        "AfterEach",
        "BeforeAll",
        "AfterAll",
        "Before",
        "After",
    ];
    const INERT: &[&str] = &[
        "staticmethod",
        "classmethod",
        "property",
        "cached_property",
        "abstractmethod",
        "abstractproperty",
        "setter",
        "getter",
        "deleter",
        "wraps",
        "lru_cache",
        "cache",
        "dataclass",
        "total_ordering",
        "Override",
        "override",
        "Deprecated",
        "deprecated",
        "SuppressWarnings",
        "final",
        "contextmanager",
        "asynccontextmanager",
        "unique",
        "Nullable",
        "NonNull",
        "Nonnull",
        "inline",
    ];
    // `mock.patch`, `patch.object`, `mock.patch.dict`: test doubles, not routes.
    let mocking = name
        .split('.')
        .any(|s| matches!(s, "mock" | "patch" | "unittest"))
        && matches!(last, "patch" | "object" | "dict" | "multiple");
    if receiver && HTTP.contains(&last) && !mocking {
        return Role::Route;
    }
    if ROUTE_NAMES.contains(&name) || ROUTE_NAMES.contains(&last) {
        return Role::Route;
    }
    if matches!(last, "command" | "group" | "callback") {
        return Role::Cli;
    }
    if HANDLERS.contains(&last) {
        return Role::Handler;
    }
    if INERT.contains(&last) {
        return Role::Inert;
    }
    Role::Other
}

// ---- liveness context ----

fn globs(patterns: &[String], what: &str) -> Result<Option<GlobSet>> {
    if patterns.is_empty() {
        return Ok(None);
    }
    let mut b = GlobSetBuilder::new();
    for p in patterns {
        b.add(Glob::new(p).map_err(|e| {
            Error::InvalidArgument(format!("[dead_code] {what}: bad pattern {p:?}: {e}"))
        })?);
    }
    b.build()
        .map(Some)
        .map_err(|e| Error::InvalidArgument(format!("[dead_code] {what}: {e}")))
}

struct Rules {
    config: DeadCodeConfig,
    decorators: Option<GlobSet>,
    names: Option<GlobSet>,
    paths: Option<GlobSet>,
}

impl Rules {
    fn new(config: DeadCodeConfig) -> Result<Rules> {
        Ok(Rules {
            decorators: globs(&config.live_decorators, "live_decorators")?,
            names: globs(&config.live_names, "live_names")?,
            paths: globs(&config.live_paths, "live_paths")?,
            config,
        })
    }
}

/// Kinds dead code is looked for among.
const CANDIDATE_KINDS: &[NodeKind] = &[
    NodeKind::Function,
    NodeKind::Method,
    NodeKind::Class,
    NodeKind::Struct,
    NodeKind::Interface,
    NodeKind::Trait,
    NodeKind::Enum,
    NodeKind::Record,
    NodeKind::Union,
    NodeKind::TypeAlias,
];

/// Entry points in listing order.
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

/// A graph node as the `Symbol` the shared predicates of `graph.rs` take.
fn symbol_of(loaded: &Loaded, ix: Ix) -> Symbol {
    let n = loaded.graph.node(ix);
    Symbol {
        id: n.id,
        stable_id: loaded.stable_ids[ix as usize].clone(),
        kind: n.kind.as_str().to_string(),
        name: n.name.clone(),
        qualified_name: n.qname.clone(),
        language: n.language.clone(),
        path: n.path.clone(),
        start_line: n.start_line,
        end_line: n.end_line,
        start_col: 0,
        signature: String::new(),
        doc: None,
        visibility: n.visibility.as_str().to_string(),
        modifiers: n
            .modifiers
            .split(',')
            .filter(|m| !m.is_empty())
            .map(str::to_string)
            .collect(),
        complexity: n.complexity,
        parent_id: n.parent_id,
    }
}

fn is_callable_or_type(kind: NodeKind) -> bool {
    CANDIDATE_KINDS.contains(&kind) || kind == NodeKind::Constructor
}

/// Everything entry-point and dead-code answers share, computed once per call.
struct Context<'a> {
    loaded: &'a Loaded,
    rules: Rules,
    /// Python files with a top-level `__name__` read (`if __name__ == "__main__":`).
    scripts: HashSet<String>,
    /// Targets of Django `urls.py` files.
    url_targets: HashSet<Ix>,
}

impl<'a> Context<'a> {
    fn new(repo: &Repo, loaded: &'a Loaded, config: DeadCodeConfig) -> Result<Context<'a>> {
        let g = &*loaded.graph;
        let scripts: HashSet<String> = repo
            .store()
            .files_with_top_level_ref(repo.generation(), "__name__")?
            .into_iter()
            .collect();
        let mut url_targets = HashSet::new();
        // Views are passed as values (`path("x/", views.index)`, `views.Index.as_view()`);
        // what urls.py calls (`path`, `include`, `login_required(...)`) is not a view.
        let refs = EdgeFilter::new(&[EdgeKind::Reads, EdgeKind::References]);
        for ix in 0..g.len() as Ix {
            let n = g.node(ix);
            if !(n.path == "urls.py" || n.path.ends_with("/urls.py")) {
                continue;
            }
            for e in g.out_edges(ix) {
                let t = g.node(e.other);
                if refs.allows(e.kind)
                    && t.path != n.path
                    && matches!(t.kind, NodeKind::Function | NodeKind::Class)
                {
                    url_targets.insert(e.other);
                }
            }
        }
        Ok(Context {
            loaded,
            rules: Rules::new(config)?,
            scripts,
            url_targets,
        })
    }

    /// Why `ix` is an entry point, if it is one: (kind, detail).
    fn entry(&self, ix: Ix) -> Option<(&'static str, Option<String>)> {
        let g = &*self.loaded.graph;
        let n = g.node(ix);
        if n.kind == NodeKind::File {
            if n.path == "__main__.py" || n.path.ends_with("/__main__.py") {
                return Some(("package_main", None));
            }
            if n.language == "python" && self.scripts.contains(&n.path) {
                return Some(("script", Some("if __name__ == \"__main__\"".into())));
            }
            return None;
        }
        if !is_callable_or_type(n.kind) {
            return None;
        }
        if n.name == "main" || n.name == "Main" {
            let s = symbol_of(self.loaded, ix);
            let parent = g.parent(ix).map(|p| symbol_of(self.loaded, p));
            if is_entry_point(&s, parent.as_ref(), &HashSet::new()) {
                return Some(("main", None));
            }
        }
        if is_test_path(&n.path) {
            return Some(("test", None));
        }
        let s = symbol_of(self.loaded, ix);
        if is_test_symbol(&s) {
            return Some(("test", None));
        }
        let decos = decorators(&n.modifiers);
        for d in &decos {
            match decorator_role(d) {
                Role::Route => return Some(("route", Some(format!("@{d}")))),
                Role::Cli => return Some(("cli", Some(format!("@{d}")))),
                _ => {}
            }
        }
        if self.url_targets.contains(&ix) {
            return Some(("route", Some("urls.py".into())));
        }
        for d in &decos {
            if decorator_role(d) == Role::Handler {
                return Some(("handler", Some(format!("@{d}"))));
            }
        }
        if let Some(set) = &self.rules.decorators
            && let Some(d) = decos.iter().find(|d| set.is_match(d.as_str()))
        {
            return Some(("configured", Some(format!("live_decorators: @{d}"))));
        }
        if let Some(set) = &self.rules.names
            && (set.is_match(&n.name) || set.is_match(&n.qname))
        {
            return Some(("configured", Some("live_names".into())));
        }
        if let Some(set) = &self.rules.paths
            && set.is_match(&n.path)
        {
            return Some(("configured", Some("live_paths".into())));
        }
        if self.rules.config.exported_is_live && self.public_api(ix, &s) {
            return Some(("public_api", None));
        }
        None
    }

    fn public_api(&self, ix: Ix, s: &Symbol) -> bool {
        let g = &*self.loaded.graph;
        let parent = g.parent(ix);
        let p = parent.map(|p| symbol_of(self.loaded, p));
        let gp = parent
            .and_then(|p| g.parent(p))
            .map(|p| symbol_of(self.loaded, p));
        is_public_api(s, p.as_ref(), gp.as_ref())
    }

    /// Every entry point, in listing order.
    fn entries(&self) -> Vec<(Ix, &'static str, Option<String>)> {
        let g = &*self.loaded.graph;
        let mut out: Vec<(Ix, &'static str, Option<String>)> = (0..g.len() as Ix)
            .filter_map(|ix| self.entry(ix).map(|(k, d)| (ix, k, d)))
            .collect();
        let rank = |k: &str| ENTRY_KINDS.iter().position(|e| *e == k).unwrap_or(99);
        out.sort_by_key(|(ix, k, _)| (rank(k), *ix));
        out
    }
}

impl Repo {
    /// Where execution starts: main functions, Python scripts and `__main__.py`, route
    /// handlers (decorators such as `@app.route`, `@router.get`, `@api_view`, Spring
    /// mappings, and Django `urls.py` targets), CLI commands (`@click.command`, `@*.command`),
    /// framework handlers (`@*.task`, `@receiver`, `@pytest.fixture`, ...), configured
    /// liveness rules, tests, and (unless `exported_is_live = false`) the public API.
    pub fn entry_points(&self, limit: usize) -> Result<EntryPoints> {
        let loaded = self.loaded()?;
        let config = load_repo_config(&self.root)?.dead_code;
        let cx = Context::new(self, &loaded, config)?;
        let entries = cx.entries();
        let mut by_kind: Vec<(String, u64)> = Vec::new();
        for k in ENTRY_KINDS {
            let n = entries.iter().filter(|(_, e, _)| e == k).count() as u64;
            if n > 0 {
                by_kind.push((k.to_string(), n));
            }
        }
        Ok(EntryPoints {
            generation: self.generation(),
            total: entries.len(),
            by_kind,
            entries: entries
                .into_iter()
                .take(limit.clamp(1, 10_000))
                .map(|(ix, kind, detail)| EntryPointItem {
                    kind,
                    node: node_ref(&loaded, ix),
                    detail,
                })
                .collect(),
        })
    }

    /// Flows along `calls` and `instantiates` edges. With an entry (an entry point's name,
    /// qualified name or id, or any symbol), its call tree to `depth`, depth first, at most
    /// `limit` steps; without, the program entry points (not tests or public API) by how much
    /// they reach.
    pub fn flows(&self, entry: Option<&str>, depth: u32, limit: usize) -> Result<Flows> {
        let loaded = self.loaded()?;
        let g = &*loaded.graph;
        let depth = depth.clamp(1, 64);
        let limit = limit.clamp(1, 10_000);
        let edges = EdgeFilter::new(&[EdgeKind::Calls, EdgeKind::Instantiates]);
        let mut out = Flows {
            generation: self.generation(),
            depth,
            edge_kinds: vec!["calls", "instantiates"],
            entry: None,
            steps: Vec::new(),
            reached: 0,
            truncated: false,
            flows: Vec::new(),
            flows_total: 0,
        };
        let config = load_repo_config(&self.root)?.dead_code;
        let cx = Context::new(self, &loaded, config)?;
        let Some(entry) = entry else {
            let mut flows: Vec<FlowSummary> = Vec::new();
            for (ix, kind, _) in cx.entries() {
                if matches!(kind, "test" | "public_api") {
                    continue;
                }
                let r = algo::reach(g, &flow_roots(g, ix), &edges, &|_| true, depth);
                let files: HashSet<&str> =
                    r.order.iter().map(|&i| g.node(i).path.as_str()).collect();
                flows.push(FlowSummary {
                    entry: node_ref(&loaded, ix),
                    kind,
                    reached: r.order.len(),
                    depth: r
                        .order
                        .iter()
                        .map(|&i| r.depth[i as usize])
                        .max()
                        .unwrap_or(0),
                    files: files.len(),
                });
            }
            flows.sort_by(|a, b| {
                b.reached
                    .cmp(&a.reached)
                    .then(a.entry.path.cmp(&b.entry.path))
                    .then(a.entry.line.cmp(&b.entry.line))
            });
            out.flows_total = flows.len();
            flows.truncate(limit);
            out.flows = flows;
            return Ok(out);
        };
        let ix = self.flow_entry(&loaded, &cx, entry)?;
        let roots = flow_roots(g, ix);
        let r = algo::reach(g, &roots, &edges, &|_| true, depth);
        // Members of an entry type hang under it.
        let mut parent: HashMap<Ix, (Ix, &'static str)> = HashMap::new();
        for &i in &r.order {
            let p = r.parent[i as usize];
            if p != Ix::MAX {
                let kind = if g
                    .out_of_kind(p, EdgeKind::Calls)
                    .iter()
                    .any(|e| e.other == i)
                {
                    "calls"
                } else {
                    "instantiates"
                };
                parent.insert(i, (p, kind));
            } else if i != ix {
                parent.insert(i, (ix, "contains"));
            }
        }
        let mut children: HashMap<Ix, Vec<Ix>> = HashMap::new();
        for &i in &r.order {
            if let Some((p, _)) = parent.get(&i) {
                children.entry(*p).or_default().push(i);
            }
        }
        out.entry = Some(node_ref(&loaded, ix));
        out.reached = r.order.len();
        let mut stack: Vec<(Ix, u32)> = vec![(ix, 0)];
        while let Some((i, d)) = stack.pop() {
            if out.steps.len() >= limit {
                out.truncated = true;
                break;
            }
            let (p, edge) = match parent.get(&i) {
                Some((p, e)) => (Some(loaded.stable_ids[*p as usize].clone()), *e),
                None => (None, "calls"),
            };
            out.steps.push(FlowStep {
                depth: d,
                node: node_ref(&loaded, i),
                parent: p,
                edge,
            });
            if let Some(kids) = children.get(&i) {
                for &k in kids.iter().rev() {
                    stack.push((k, d + 1));
                }
            }
        }
        Ok(out)
    }

    /// The node a flow starts from: an entry point named `text` (name, qualified name or id),
    /// else any symbol it resolves to.
    fn flow_entry(&self, loaded: &Loaded, cx: &Context<'_>, text: &str) -> Result<Ix> {
        let g = &*loaded.graph;
        let text = text.trim();
        let matches: Vec<Ix> = cx
            .entries()
            .into_iter()
            .filter(|(_, k, _)| !matches!(*k, "test" | "public_api"))
            .map(|(ix, _, _)| ix)
            .filter(|&ix| {
                let n = g.node(ix);
                n.name == text
                    || n.qname == text
                    || loaded.stable_ids[ix as usize] == text
                    || (n.kind == NodeKind::File && n.path == text)
            })
            .collect();
        if matches.len() == 1 {
            return Ok(matches[0]);
        }
        let s = self.resolve_symbol(text)?;
        g.index_of(s.id).ok_or_else(|| {
            Error::InvalidArgument(format!("{text}: not in the graph of this generation"))
        })
    }

    /// Dead code: callables and types (of `kinds`, default all) that no entry point reaches
    /// and nothing references. `dead` only when sure; `unknown` (with the reason) for vendored
    /// code, dunder methods, when a same-name unresolved reference exists in a language that
    /// can call it, for overrides, methods sharing their name with a used method (dynamic
    /// dispatch), subclasses and members of types with bases outside the repository, decorated
    /// symbols, exports (`__all__`, `export`), files with reflection (`getattr`, `globals`,
    /// ...) and the types deriving from a reflective one, globals of JavaScript scripts that
    /// are not modules, and definitions nested in functions or types.
    pub fn dead_code(&self, kinds: &[String], limit: usize) -> Result<DeadCode> {
        let kinds = parse_kinds(kinds)?;
        let loaded = self.loaded()?;
        let g = &*loaded.graph;
        let limit = limit.clamp(1, 10_000);
        let config_file = repo_config_path(&self.root);
        let has_config = config_file.exists();
        let config = load_repo_config(&self.root)?.dead_code;
        let cx = Context::new(self, &loaded, config.clone())?;
        let facts = Facts::gather(self, &loaded)?;
        let deps = EdgeFilter::dependencies();

        let entries = cx.entries();
        let roots: Vec<Ix> = entries.iter().map(|(ix, _, _)| *ix).collect();
        let reach = algo::reach(g, &roots, &deps, &|_| true, u32::MAX);
        let is_entry: HashSet<Ix> = roots.iter().copied().collect();

        let mut out = DeadCode {
            generation: self.generation(),
            candidates: 0,
            entry_points: 0,
            referenced: 0,
            dead_count: 0,
            unknown_count: 0,
            unknown_share: 0.0,
            unknown_by_reason: Vec::new(),
            dead: Vec::new(),
            unknown: Vec::new(),
            rules: config,
            config_file: has_config.then(|| config_file.display().to_string()),
        };
        let mut reasons: BTreeMap<&'static str, u64> = BTreeMap::new();
        type Verdict = (Ix, &'static str, &'static str, Option<String>);
        let mut items: Vec<Verdict> = Vec::new();
        for ix in 0..g.len() as Ix {
            let n = g.node(ix);
            if !CANDIDATE_KINDS.contains(&n.kind) || (!kinds.is_empty() && !kinds.contains(&n.kind))
            {
                continue;
            }
            if n.modifiers.split(',').any(|m| m == "declaration") {
                continue;
            }
            out.candidates += 1;
            if is_entry.contains(&ix) {
                out.entry_points += 1;
                continue;
            }
            if referenced(g, ix, &deps) || reach.reached(ix) {
                out.referenced += 1;
                continue;
            }
            let (status, reason, detail) = match facts.undecided(g, ix) {
                Some((reason, detail)) => ("unknown", reason, detail),
                None => ("dead", "unreferenced", None),
            };
            items.push((ix, status, reason, detail));
        }
        // Would-be dead names written anywhere else (a string, a template, a settings path, a
        // comment) may be used in a way the graph cannot see.
        let dead_names: Vec<&str> = items
            .iter()
            .filter(|i| i.1 == "dead")
            .map(|i| g.node(i.0).name.as_str())
            .collect();
        let mentions = self.mentions(&dead_names);
        let mut definitions: HashMap<&str, usize> = HashMap::new();
        if !mentions.is_empty() {
            for ix in 0..g.len() as Ix {
                let name = g.node(ix).name.as_str();
                if mentions.contains_key(name) {
                    *definitions.entry(name).or_default() += 1;
                }
            }
        }
        for (ix, mut status, mut reason, mut detail) in items {
            let n = g.node(ix);
            if status == "dead" {
                let seen = mentions.get(n.name.as_str()).copied().unwrap_or(0);
                let defined = definitions.get(n.name.as_str()).copied().unwrap_or(0);
                if seen > defined {
                    status = "unknown";
                    reason = "mentioned";
                    detail = Some(format!(
                        "{} written {} times outside its definitions",
                        n.name,
                        seen - defined
                    ));
                }
            }
            let item = DeadItem {
                node: node_ref(&loaded, ix),
                status,
                reason,
                detail,
                lines: n.end_line.saturating_sub(n.start_line) + 1,
            };
            if status == "dead" {
                out.dead_count += 1;
                if out.dead.len() < limit {
                    out.dead.push(item);
                }
            } else {
                out.unknown_count += 1;
                *reasons.entry(reason).or_default() += 1;
                if out.unknown.len() < limit {
                    out.unknown.push(item);
                }
            }
        }
        let undecided = out.dead_count + out.unknown_count;
        out.unknown_share = if undecided == 0 {
            0.0
        } else {
            ((out.unknown_count as f64 / undecided as f64) * 1000.0).round() / 1000.0
        };
        let mut by_reason: Vec<(String, u64)> = reasons
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect();
        by_reason.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        out.unknown_by_reason = by_reason;
        Ok(out)
    }
}

/// Roots of a flow: the entry, and for a type its callable members.
fn flow_roots(g: &Graph, ix: Ix) -> Vec<Ix> {
    let mut roots = vec![ix];
    if g.node(ix).kind.is_type_like() {
        for e in g.out_of_kind(ix, EdgeKind::Contains) {
            if g.node(e.other).kind.is_callable() {
                roots.push(e.other);
            }
        }
    }
    roots
}

/// Whether an allowed edge arrives at `ix` from outside it (not from itself or a node nested
/// in it: recursion and a class using itself do not count).
fn referenced(g: &Graph, ix: Ix, deps: &EdgeFilter) -> bool {
    g.in_edges(ix).iter().any(|e| {
        if !deps.allows(e.kind) {
            return false;
        }
        let mut at = e.other;
        loop {
            if at == ix {
                return false;
            }
            match g.parent(at) {
                Some(p) => at = p,
                None => return true,
            }
        }
    })
}

/// Reflection-prone calls by language.
fn reflection_names(language: &str) -> &'static [&'static str] {
    match language {
        "python" => &[
            "getattr",
            "hasattr",
            "globals",
            "locals",
            "vars",
            "__import__",
            "import_module",
            "eval",
            "exec",
        ],
        "ruby" => &[
            "send",
            "public_send",
            "__send__",
            "define_method",
            "const_get",
            "method",
        ],
        "java" | "kotlin" => &[
            "getMethod",
            "getDeclaredMethod",
            "forName",
            "getDeclaredField",
        ],
        "go" => &["MethodByName", "FieldByName"],
        "php" => &["call_user_func", "call_user_func_array"],
        "javascript" | "typescript" | "tsx" => &["Reflect"],
        "csharp" => &["GetMethod", "GetType", "InvokeMember"],
        _ => &[],
    }
}

const ALL_REFLECTION: &[&str] = &[
    "getattr",
    "hasattr",
    "globals",
    "locals",
    "vars",
    "__import__",
    "import_module",
    "eval",
    "exec",
    "send",
    "public_send",
    "__send__",
    "define_method",
    "const_get",
    "method",
    "getMethod",
    "getDeclaredMethod",
    "forName",
    "getDeclaredField",
    "MethodByName",
    "FieldByName",
    "call_user_func",
    "call_user_func_array",
    "Reflect",
    "GetMethod",
    "GetType",
    "InvokeMember",
];

/// Facts beyond the graph that decide `unknown`.
struct Facts {
    /// Unresolved reference names → languages they are written in.
    unresolved: HashMap<String, Vec<String>>,
    /// Types whose methods may be called by name (reflection in the type or a base).
    reflective_types: HashSet<Ix>,
    /// Files with reflection anywhere (their definitions may be looked up by name).
    reflective_files: HashSet<String>,
    /// Names of methods something references: a same-named method may be reached through
    /// dynamic dispatch (a mixin, duck typing) → (name, one referenced method).
    called_methods: HashMap<String, Ix>,
    /// JavaScript/TypeScript files that are ES modules (they import or export something);
    /// top-level functions of other scripts are globals other scripts may call.
    module_files: HashSet<String>,
    /// Types with a base outside the repository (and their subtypes).
    external_based: HashSet<Ix>,
    /// (directory, name) listed in a Python `__all__`.
    all_exports: HashSet<(String, String)>,
}

impl Facts {
    fn gather(repo: &Repo, loaded: &Loaded) -> Result<Facts> {
        let g = &*loaded.graph;
        let generation = repo.generation();
        let store = repo.store();
        let mut unresolved: HashMap<String, Vec<String>> = HashMap::new();
        for u in store.unresolved_names(generation)? {
            unresolved.entry(u.name).or_default().push(u.language);
        }
        // Reflection sites.
        let mut reflective_types: HashSet<Ix> = HashSet::new();
        let mut reflective_files: HashSet<String> = HashSet::new();
        for site in store.ref_sources_named(generation, ALL_REFLECTION)? {
            let Some(src) = g.index_of(site.src_id) else {
                continue;
            };
            let lang = &g.node(src).language;
            if !reflection_names(lang).contains(&site.name.as_str()) {
                continue;
            }
            if let Some(t) = enclosing_type(g, src) {
                reflective_types.insert(t);
            }
            reflective_files.insert(site.path.clone());
        }
        let reflective_types = with_subtypes(g, reflective_types);
        // Bases outside the repository.
        let mut external: HashSet<Ix> = HashSet::new();
        let mut by_name_in_file: HashMap<(&str, &str), Vec<Ix>> = HashMap::new();
        for ix in 0..g.len() as Ix {
            let n = g.node(ix);
            if n.kind.is_type_like() {
                by_name_in_file
                    .entry((n.path.as_str(), n.name.as_str()))
                    .or_default()
                    .push(ix);
            }
        }
        for b in store.unresolved_base_refs(generation)? {
            let Some(src) = g.index_of(b.src_id) else {
                continue;
            };
            if g.node(src).kind.is_type_like() {
                external.insert(src);
            } else if let Some(imp) = &b.implementor {
                let short = imp.rsplit([':', '.']).next().unwrap_or(imp);
                for &t in by_name_in_file
                    .get(&(b.path.as_str(), short))
                    .into_iter()
                    .flatten()
                {
                    external.insert(t);
                }
            }
        }
        let external_based = with_subtypes(g, external);
        // Python __all__.
        let mut all_exports = HashSet::new();
        for ix in 0..g.len() as Ix {
            let n = g.node(ix);
            if n.name == "__all__" && n.language == "python" && n.kind != NodeKind::File {
                for name in repo.all_names_listed(&n.path, n.start_line, n.end_line) {
                    all_exports.insert((dir_of(&n.path).to_string(), name));
                }
            }
        }
        // Methods something uses, by name.
        let deps = EdgeFilter::dependencies();
        let mut called_methods: HashMap<String, Ix> = HashMap::new();
        let mut module_files: HashSet<String> = HashSet::new();
        for ix in 0..g.len() as Ix {
            let n = g.node(ix);
            if n.kind == NodeKind::Method
                && !called_methods.contains_key(&n.name)
                && referenced(g, ix, &deps)
            {
                called_methods.insert(n.name.clone(), ix);
            }
            if matches!(n.language.as_str(), "javascript" | "typescript" | "tsx")
                && (n.modifiers.split(',').any(|m| m == "export")
                    || (n.kind == NodeKind::File
                        && !g.out_of_kind(ix, EdgeKind::Imports).is_empty()))
            {
                module_files.insert(n.path.clone());
            }
        }
        Ok(Facts {
            unresolved,
            reflective_types,
            reflective_files,
            called_methods,
            module_files,
            external_based,
            all_exports,
        })
    }

    /// Why an unreferenced node cannot be called dead, if it cannot: (reason, detail).
    fn undecided(&self, g: &Graph, ix: Ix) -> Option<(&'static str, Option<String>)> {
        let n = g.node(ix);
        if is_vendored(&n.path) {
            return Some(("vendored", None));
        }
        if n.name.len() > 4 && n.name.starts_with("__") && n.name.ends_with("__") {
            return Some(("dunder", None));
        }
        if let Some(langs) = self.unresolved.get(&n.name) {
            let allowed = interoperating(&n.language);
            if let Some(l) = langs
                .iter()
                .find(|l| allowed.is_empty() || allowed.contains(&l.as_str()))
            {
                return Some((
                    "unresolved_reference",
                    Some(format!("an unresolved {l} reference names {}", n.name)),
                ));
            }
        }
        if let Some(e) = g.out_of_kind(ix, EdgeKind::Overrides).first() {
            return Some(("override", Some(g.node(e.other).qname.clone())));
        }
        // Declared overrides (`@override`, `@typing.override`, Java `@Override`, C# and Kotlin
        // `override`): the base that calls them may be outside the repository (a framework hook).
        let declared_override = n.modifiers.split(',').any(|m| m.trim() == "override")
            || decorators(&n.modifiers).iter().any(|d| {
                d.rsplit('.')
                    .next()
                    .is_some_and(|l| l.eq_ignore_ascii_case("override"))
            });
        if declared_override {
            return Some(("override", Some("declared an override".into())));
        }
        if n.kind == NodeKind::Method
            && let Some(&other) = self.called_methods.get(&n.name)
            && other != ix
        {
            return Some(("polymorphic", Some(g.node(other).qname.clone())));
        }
        let owner = g.parent(ix).filter(|&p| g.node(p).kind.is_type_like());
        if n.kind.is_type_like() {
            if self.external_based.contains(&ix) {
                return Some(("external_base", None));
            }
            let base = g
                .out_of_kind(ix, EdgeKind::Inherits)
                .iter()
                .chain(g.out_of_kind(ix, EdgeKind::Implements))
                .next();
            if let Some(b) = base {
                return Some(("subclass", Some(g.node(b.other).qname.clone())));
            }
        }
        if let Some(o) = owner
            && self.external_based.contains(&o)
        {
            return Some(("external_base", Some(g.node(o).qname.clone())));
        }
        let decos = decorators(&n.modifiers);
        if let Some(d) = decos.iter().find(|d| decorator_role(d) != Role::Inert) {
            return Some(("decorated", Some(format!("@{d}"))));
        }
        if n.modifiers.split(',').any(|m| m == "export")
            || self
                .all_exports
                .contains(&(dir_of(&n.path).to_string(), n.name.clone()))
        {
            return Some(("exported", None));
        }
        if let Some(o) = owner
            && self.reflective_types.contains(&o)
        {
            return Some(("reflection", Some(g.node(o).qname.clone())));
        }
        if self.reflective_files.contains(&n.path) {
            return Some(("reflection", Some(n.path.clone())));
        }
        // `f = wrap(f)`, `err_handler = Handler(err_handler)`: the name is bound again beside
        // the definition, and uses reach the definition through the new binding.
        if let Some(p) = g.parent(ix)
            && let Some(e) = g
                .out_of_kind(p, EdgeKind::Contains)
                .iter()
                .find(|e| e.other != ix && g.node(e.other).name == n.name)
        {
            return Some(("rebound", Some(g.node(e.other).qname.clone())));
        }
        if matches!(n.language.as_str(), "javascript" | "typescript" | "tsx")
            && !self.module_files.contains(&n.path)
        {
            return Some(("script_global", None));
        }
        if let Some(p) = g.parent(ix)
            && g.node(p).kind.is_callable()
        {
            return Some(("nested", Some(g.node(p).qname.clone())));
        }
        if owner.is_some() && is_nested_type(g, ix) {
            return Some(("nested", None));
        }
        None
    }
}

/// Third-party code copied into the repository: its unused parts are not this repository's
/// dead code.
fn is_vendored(path: &str) -> bool {
    path.split('/').any(|d| {
        matches!(
            d,
            "vendor" | "vendored" | "third_party" | "thirdparty" | "node_modules" | "external"
        )
    }) || path.ends_with(".min.js")
}

/// A type defined inside another type (Django's `class Meta:` is read by a metaclass).
fn is_nested_type(g: &Graph, ix: Ix) -> bool {
    g.node(ix).kind.is_type_like() && g.parent(ix).is_some_and(|p| g.node(p).kind.is_type_like())
}

/// The innermost type containing `ix` (itself if it is one).
fn enclosing_type(g: &Graph, ix: Ix) -> Option<Ix> {
    let mut at = Some(ix);
    while let Some(i) = at {
        if g.node(i).kind.is_type_like() {
            return Some(i);
        }
        at = g.parent(i);
    }
    None
}

/// `types` and every type deriving from one of them (incoming `inherits`/`implements`,
/// transitively).
fn with_subtypes(g: &Graph, types: HashSet<Ix>) -> HashSet<Ix> {
    let mut out = types.clone();
    let mut stack: Vec<Ix> = types.into_iter().collect();
    while let Some(t) = stack.pop() {
        for e in g
            .in_of_kind(t, EdgeKind::Inherits)
            .iter()
            .chain(g.in_of_kind(t, EdgeKind::Implements))
        {
            if out.insert(e.other) {
                stack.push(e.other);
            }
        }
    }
    out
}

impl Repo {
    /// How many times each of `names` is written as a whole word in the repository's files
    /// (every file the walk finds, indexed or not: templates, settings, docs), read through
    /// `sextant-vfs`. Names never written are left out.
    fn mentions(&self, names: &[&str]) -> HashMap<String, usize> {
        let mut unique: Vec<&str> = names
            .iter()
            .copied()
            .filter(|n| {
                !n.is_empty()
                    && n.chars()
                        .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
            })
            .collect();
        unique.sort_unstable();
        unique.dedup();
        if unique.is_empty() {
            return HashMap::new();
        }
        let alternation: Vec<String> = unique.iter().map(|n| regex::escape(n)).collect();
        let Ok(re) = regex::Regex::new(&format!(r"\b(?:{})\b", alternation.join("|"))) else {
            return HashMap::new();
        };
        let mut exclude = Vec::new();
        if let Ok(dir) = self.data.dir.canonicalize() {
            exclude.push(dir);
        }
        let config = sextant_vfs::WalkConfig {
            exclude,
            ..sextant_vfs::WalkConfig::default()
        };
        let walk = sextant_vfs::walk(&self.root, &config, |_| true);
        use rayon::prelude::*;
        walk.files
            .par_iter()
            .map(|f| {
                let mut counts: HashMap<String, usize> = HashMap::new();
                if sextant_vfs::is_secret_path(f.path.as_str()) {
                    return counts;
                }
                if let Ok(file) = sextant_vfs::read_source(&f.abs, 1 << 20, usize::MAX, usize::MAX)
                {
                    for m in re.find_iter(&file.text) {
                        *counts.entry(m.as_str().to_string()).or_default() += 1;
                    }
                }
                counts
            })
            .reduce(HashMap::new, |mut a, b| {
                for (k, v) in b {
                    *a.entry(k).or_default() += v;
                }
                a
            })
    }

    /// The names listed in a Python `__all__` assignment spanning `start..=end` of `path`
    /// (string literals), read through `sextant-vfs`; empty when the file cannot be read.
    fn all_names_listed(&self, path: &str, start: u32, end: u32) -> Vec<String> {
        let Ok((_, abs)) = sextant_vfs::confine(&self.root, path) else {
            return Vec::new();
        };
        let Ok(file) = sextant_vfs::read_source(&abs, 16 << 20, usize::MAX, usize::MAX) else {
            return Vec::new();
        };
        let text: String = file
            .text
            .lines()
            .skip(start.saturating_sub(1) as usize)
            .take((end.saturating_sub(start) + 1).min(10_000) as usize)
            .collect::<Vec<_>>()
            .join("\n");
        string_literals(&text)
    }
}

/// The contents of the simple string literals in `text` (`"a"`, `'b'`).
fn string_literals(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '#' {
            for c in chars.by_ref() {
                if c == '\n' {
                    break;
                }
            }
            continue;
        }
        if c == '"' || c == '\'' {
            let mut s = String::new();
            let mut closed = false;
            for d in chars.by_ref() {
                if d == c {
                    closed = true;
                    break;
                }
                if d == '\n' {
                    break;
                }
                s.push(d);
            }
            if closed && !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_') {
                out.push(s);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decorator_names_survive_commas_in_arguments() {
        assert_eq!(
            decorators("@app.route(\"/x\", methods=[\"GET\", \"POST\"]),async"),
            vec!["app.route"]
        );
        assert_eq!(
            decorators("static,@click.command(),@click.option('--n', default=1)"),
            vec!["click.command", "click.option"]
        );
        assert_eq!(decorators("@[HttpGet(\"x\")]"), vec!["HttpGet"]);
        assert!(decorators("static,async").is_empty());
    }

    #[test]
    fn decorator_roles() {
        assert_eq!(decorator_role("app.route"), Role::Route);
        assert_eq!(decorator_role("router.get"), Role::Route);
        assert_eq!(decorator_role("api_view"), Role::Route);
        assert_eq!(decorator_role("GetMapping"), Role::Route);
        assert_eq!(decorator_role("click.command"), Role::Cli);
        assert_eq!(decorator_role("cli.group"), Role::Cli);
        assert_eq!(decorator_role("celery.task"), Role::Handler);
        assert_eq!(decorator_role("pytest.fixture"), Role::Handler);
        assert_eq!(decorator_role("staticmethod"), Role::Inert);
        assert_eq!(decorator_role("value.setter"), Role::Inert);
        assert_eq!(decorator_role("login_required"), Role::Other);
    }

    #[test]
    fn all_literals() {
        assert_eq!(
            string_literals("__all__ = [\n  'a', \"b_c\",  # 'not'\n 'x y']"),
            vec!["a", "b_c"]
        );
    }
}
