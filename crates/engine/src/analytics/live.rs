//! Entry points, flows and dead code: what starts execution, what an entry point reaches, and
//! which definitions nothing uses. Dead code is said only when the rules are sure; anything the
//! graph cannot decide (a same-name unresolved reference that could reach it, a dunder, an
//! override, a subclass, a decorator, an export, reflection nearby) is `unknown`, never `dead`.
//! Liveness rules can be added per repository in `<repo>/.sextant.toml`:
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
    /// `polymorphic`, `subclass`, `external_base`, `decorated`, `structural`,
    /// `dynamic_import`, `default_export`, `augmentation`, `merged`, `object_member`,
    /// `escaping`, `path_alias`, `exported`, `reflection`, `rebound`, `script_global`, `nested`,
    /// `mentioned`), or `unreferenced`.
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
    /// What registration calls hand over: `set_defaults(func=handler)` (argparse),
    /// `add_command(cmd)` (click) → `cli`; `add_url_rule(view_func=...)`, `add_api_route`,
    /// `add_route`, `register_view` → `route`; with the call's name.
    registered: HashMap<Ix, (&'static str, String)>,
}

/// Registration calls whose arguments are entry points, with the entry kind they give.
const REGISTRATIONS: &[(&str, &str)] = &[
    ("set_defaults", "cli"),
    ("add_command", "cli"),
    ("add_url_rule", "route"),
    ("add_api_route", "route"),
    ("add_api_websocket_route", "route"),
    ("add_route", "route"),
    ("register_view", "route"),
];

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
        let names: Vec<&str> = REGISTRATIONS.iter().map(|(n, _)| *n).collect();
        let mut registered = HashMap::new();
        for (call, id) in repo.store().registered_targets(repo.generation(), &names)? {
            let Some(ix) = g.index_of(id) else { continue };
            let Some(&(_, kind)) = REGISTRATIONS.iter().find(|(n, _)| *n == call) else {
                continue;
            };
            if is_callable_or_type(g.node(ix).kind) {
                registered.entry(ix).or_insert((kind, call));
            }
        }
        Ok(Context {
            loaded,
            rules: Rules::new(config)?,
            scripts,
            url_targets,
            registered,
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
        if let Some((kind, call)) = self.registered.get(&ix) {
            return Some((kind, Some(format!("{call}(...)"))));
        }
        // Alembic (and Flask-Migrate) revisions: Alembic calls `upgrade` / `downgrade` of every
        // revision file by name.
        if n.language == "python"
            && n.kind == NodeKind::Function
            && matches!(n.name.as_str(), "upgrade" | "downgrade")
            && g.parent(ix)
                .is_some_and(|p| g.node(p).kind == NodeKind::File)
            && n.path
                .split('/')
                .any(|d| matches!(d, "migrations" | "alembic" | "versions"))
        {
            return Some(("handler", Some("alembic revision".into())));
        }
        // Django migrations: the migration loader imports every module of an app's
        // `migrations/` package and takes its `Migration` class by name.
        if n.language == "python"
            && n.kind == NodeKind::Class
            && n.name == "Migration"
            && g.parent(ix)
                .is_some_and(|p| g.node(p).kind == NodeKind::File)
            && n.path.split('/').any(|d| d == "migrations")
        {
            return Some(("handler", Some("django migration".into())));
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
        let mut out = Flows {
            generation: self.generation(),
            depth,
            edge_kinds: vec!["calls", "instantiates", "constructor"],
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
                let r = flow_reach(g, &flow_roots(g, ix), depth);
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
        let r = flow_reach(g, &roots, depth);
        // Members of an entry type hang under it.
        let mut parent: HashMap<Ix, (Ix, &'static str)> = HashMap::new();
        for &i in &r.order {
            let p = r.parent[i as usize];
            if p != Ix::MAX {
                parent.insert(i, (p, r.edge[i as usize]));
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
    /// code, dunder methods, when a same-name unresolved reference could reach it (its kind,
    /// receiver and place weighed), for overrides, methods sharing their
    /// name with a used method the call could dispatch to, subclasses and members of types
    /// with bases outside the repository (unless those bases are known model/form bases and
    /// the member is not one of their hooks), decorated symbols, TS members named like an
    /// interface member, exports of dynamically imported files, default exports, module
    /// augmentation, exports (`__all__`; `export` unless `exported_is_live = false` and no
    /// `package.json` publishes the file), files with reflection (`getattr`, `globals`, ...)
    /// and the types deriving from a reflective one, globals of JavaScript scripts that are
    /// not modules, definitions nested in functions or types, and names written in templates,
    /// settings or string literals.
    pub fn dead_code(&self, kinds: &[String], limit: usize) -> Result<DeadCode> {
        let kinds = parse_kinds(kinds)?;
        let loaded = self.loaded()?;
        let g = &*loaded.graph;
        let limit = limit.clamp(1, 10_000);
        let config_file = repo_config_path(&self.root);
        let has_config = config_file.exists();
        let config = load_repo_config(&self.root)?.dead_code;
        let cx = Context::new(self, &loaded, config.clone())?;
        let mut facts = Facts::gather(self, &loaded, &cx.rules.config)?;
        let deps = EdgeFilter::dependencies();

        let entries = cx.entries();
        let roots: Vec<Ix> = entries.iter().map(|(ix, _, _)| *ix).collect();
        let reach = algo::reach(g, &roots, &deps, &|_| true, u32::MAX);
        let is_entry: HashSet<Ix> = roots.iter().copied().collect();
        let uses = use_edges();
        facts.live = (0..g.len() as Ix)
            .filter(|&ix| is_entry.contains(&ix) || referenced(g, ix, &uses) || reach.reached(ix))
            .collect();

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
        // A would-be dead method of a class nothing in the code uses but a string names
        // (`DATABASE_ROUTERS = ["app.db.Router"]`) is called by whatever loads the class by name.
        let owner_type = |ix: Ix| g.parent(ix).filter(|&p| g.node(p).kind.is_type_like());
        let dead_names: Vec<&str> = items
            .iter()
            .filter(|i| i.1 == "dead")
            .flat_map(|i| {
                std::iter::once(g.node(i.0).name.as_str())
                    .chain(owner_type(i.0).map(|o| g.node(o).name.as_str()))
            })
            .collect();
        let mentions = self.mentions(&dead_names);
        let mut definitions: HashMap<&str, usize> = HashMap::new();
        if !mentions.is_empty() {
            // A definition's own name counts only where code is not blanked out (a file of a
            // language the text scan does not know).
            for ix in 0..g.len() as Ix {
                let n = g.node(ix);
                if mentions.contains_key(n.name.as_str())
                    && comment_style(&n.path) == CommentStyle::None
                {
                    *definitions.entry(n.name.as_str()).or_default() += 1;
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
                } else if let Some(o) = owner_type(ix).filter(|o| !facts.live.contains(o)) {
                    let o = g.node(o);
                    let seen = mentions.get(o.name.as_str()).copied().unwrap_or(0);
                    let defined = definitions.get(o.name.as_str()).copied().unwrap_or(0);
                    if seen > defined {
                        status = "unknown";
                        reason = "mentioned";
                        detail = Some(format!(
                            "its class {} written {} times outside its definitions",
                            o.name,
                            seen - defined
                        ));
                    }
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

/// A flow's reach: breadth first along `calls` and `instantiates`, and from an instantiated
/// type into its constructor (`__init__`, `__new__`, `constructor`, a constructor node), which
/// is what `Foo()` runs.
struct FlowReach {
    /// Per node: depth (`u32::MAX` unreached), the node it was found from (`Ix::MAX` for roots)
    /// and how (`calls`, `instantiates`, `constructor`).
    depth: Vec<u32>,
    parent: Vec<Ix>,
    edge: Vec<&'static str>,
    order: Vec<Ix>,
}

fn flow_reach(g: &Graph, roots: &[Ix], max_depth: u32) -> FlowReach {
    let n = g.len();
    let mut r = FlowReach {
        depth: vec![u32::MAX; n],
        parent: vec![Ix::MAX; n],
        edge: vec!["calls"; n],
        order: Vec::new(),
    };
    for &x in roots {
        if (x as usize) < n && r.depth[x as usize] == u32::MAX {
            r.depth[x as usize] = 0;
            r.order.push(x);
        }
    }
    let mut head = 0;
    while head < r.order.len() {
        let u = r.order[head];
        head += 1;
        let du = r.depth[u as usize];
        if du >= max_depth {
            continue;
        }
        let mut next: Vec<(Ix, &'static str)> = Vec::new();
        for e in g.out_edges(u) {
            match e.kind {
                EdgeKind::Calls => next.push((e.other, "calls")),
                EdgeKind::Instantiates => next.push((e.other, "instantiates")),
                _ => {}
            }
        }
        // Reached by instantiation (not as a root: an entry type lists its members itself).
        if g.node(u).kind.is_type_like() && du > 0 {
            for c in constructors(g, u) {
                next.push((c, "constructor"));
            }
        }
        for (v, how) in next {
            if r.depth[v as usize] == u32::MAX {
                r.depth[v as usize] = du + 1;
                r.parent[v as usize] = u;
                r.edge[v as usize] = how;
                r.order.push(v);
            }
        }
    }
    r
}

/// The constructors of a type: constructor nodes and the methods the language runs on
/// instantiation (`__init__`, `__new__`, `constructor`).
fn constructors(g: &Graph, t: Ix) -> Vec<Ix> {
    g.out_of_kind(t, EdgeKind::Contains)
        .iter()
        .map(|e| e.other)
        .filter(|&c| {
            let m = g.node(c);
            m.kind == NodeKind::Constructor
                || (m.kind == NodeKind::Method
                    && matches!(m.name.as_str(), "__init__" | "__new__" | "constructor"))
        })
        .collect()
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
/// Dependency edges that use their target: every dependency but `overrides` (a method
/// overriding another does not call it).
fn use_edges() -> EdgeFilter {
    EdgeFilter::new(&[
        EdgeKind::Calls,
        EdgeKind::References,
        EdgeKind::Reads,
        EdgeKind::Writes,
        EdgeKind::Instantiates,
        EdgeKind::UsesType,
        EdgeKind::Inherits,
        EdgeKind::Implements,
        EdgeKind::Imports,
    ])
}

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
    /// Unresolved references by name.
    unresolved: HashMap<String, Vec<Use>>,
    /// Member names of built-in types by language (`append`, `push`): on a receiver of unknown
    /// type the resolver calls them external, so such a reference may still be a method here.
    builtin_members: HashMap<String, HashSet<String>>,
    /// Methods reached by a guess at an unknown receiver (`unique_member`, `ambiguous_member`).
    guessed: HashSet<Ix>,
    /// Types → their inheritance component (types linked by `inherits`/`implements`, either
    /// way, share one); types in no relation are absent.
    hierarchy: HashMap<Ix, usize>,
    /// Types whose methods may be called by name (reflection in the type or a base).
    reflective_types: HashSet<Ix>,
    /// Files with reflection anywhere (their definitions may be looked up by name).
    reflective_files: HashSet<String>,
    /// Names of methods something references → those methods: a same-named method may be
    /// reached through dynamic dispatch (a mixin, an override, duck typing).
    called_methods: HashMap<String, Vec<Ix>>,
    /// JavaScript/TypeScript files that are ES modules (they import or export something);
    /// top-level functions of other scripts are globals other scripts may call.
    module_files: HashSet<String>,
    /// Types with a base outside the repository (and their subtypes).
    external_based: HashSet<Ix>,
    /// Types among `external_based` whose outside bases are all known framework bases
    /// (`db.Model`, `FlaskForm`, ...): the framework calls only those bases' hooks.
    hooks_of: HashMap<Ix, Vec<&'static FrameworkBase>>,
    /// (directory, name) listed in a Python `__all__`.
    all_exports: HashSet<(String, String)>,
    /// Exports count as public API (`exported_is_live`); otherwise only those of the files a
    /// `package.json` publishes (`main`, `exports`, `bin`, ...) and the files they re-export.
    exports_public: bool,
    /// JavaScript/TypeScript files a `package.json` publishes (and what they import whole).
    published_files: HashSet<String>,
    /// TypeScript interface names declared more than once (declaration merging, module
    /// augmentation: `declare module "x" { interface Config { ... } }`).
    merged_interfaces: HashSet<String>,
    /// TypeScript/JavaScript interface members by name: a function or method of that name may
    /// be reached through an object that satisfies the interface without saying so, when the
    /// member is used or public.
    interface_members: HashMap<String, Vec<Ix>>,
    /// JavaScript/TypeScript files loaded with `import("./x.js")`: what the loaded module's
    /// exports are used for is not in the graph (`const { a } = await import(...)`).
    dynamic_imports: HashSet<String>,
    /// (path, name) listed in an `export { name }` / `export { name as alias }` clause.
    export_clauses: HashSet<(String, String)>,
    /// (path, name) of default exports (`export default function name`, `export default
    /// name`): importers use them under a name of their own.
    default_exports: HashSet<(String, String)>,
    /// Files with an `export default`: in a dynamically loaded file the default export's value
    /// (an object of handlers) may hold any of its definitions.
    default_files: HashSet<String>,
    /// Types combined with an outside base in a subclass (mixins) → that subclass.
    mixed_into: HashMap<Ix, Ix>,
    /// Entry points, definitions with an incoming dependency edge and those an entry point
    /// reaches (set by the caller before asking `undecided`).
    live: HashSet<Ix>,
    /// JavaScript/TypeScript functions that are methods of an object literal.
    object_members: HashSet<Ix>,
    /// Names stored as values in JavaScript/TypeScript object literals (`{ A }`, `A: A`).
    stored_classes: HashSet<String>,
    /// Name → (path tail, specifier) of names imported from a non-relative specifier that may
    /// be a path alias (`import { x } from "~/api"` → `api`).
    alias_imports: HashMap<String, Vec<(String, String)>>,
}

/// What the text of the JavaScript/TypeScript files says about how modules are used.
struct ModuleTexts {
    dynamic_imports: HashSet<String>,
    export_clauses: HashSet<(String, String)>,
    default_exports: HashSet<(String, String)>,
    default_files: HashSet<String>,
    object_members: HashSet<Ix>,
    stored_classes: HashSet<String>,
    alias_imports: HashMap<String, Vec<(String, String)>>,
}

impl Facts {
    fn gather(repo: &Repo, loaded: &Loaded, config: &DeadCodeConfig) -> Result<Facts> {
        let g = &*loaded.graph;
        let generation = repo.generation();
        let store = repo.store();
        let mut unresolved: HashMap<String, Vec<Use>> = HashMap::new();
        for u in store.unresolved_uses(generation)? {
            let src = g.index_of(u.src_id);
            unresolved.entry(u.name).or_default().push(Use {
                language: u.language,
                kind: u.kind,
                receiver: u.receiver,
                reason: u.reason,
                src,
                path: u.path,
            });
        }
        let registry = sextant_lang::Registry::builtin()?;
        let mut builtin_members: HashMap<String, HashSet<String>> = HashMap::new();
        for l in registry.languages() {
            builtin_members.insert(
                l.id().to_string(),
                l.manifest.builtins.members.iter().cloned().collect(),
            );
        }
        let guessed: HashSet<Ix> = store
            .guessed_member_targets(generation)?
            .into_iter()
            .filter_map(|id| g.index_of(id))
            .collect();
        let hierarchy = hierarchy_components(g);
        // Reflection sites.
        let mut reflective_types: HashSet<Ix> = HashSet::new();
        let mut reflective_files: HashSet<String> = HashSet::new();
        let mut texts: HashMap<String, String> = HashMap::new();
        for site in store.ref_sources_named(generation, ALL_REFLECTION)? {
            let Some(src) = g.index_of(site.src_id) else {
                continue;
            };
            let lang = &g.node(src).language;
            if !reflection_names(lang).contains(&site.name.as_str()) {
                continue;
            }
            // `getattr(obj, "name")`, `hasattr(obj, "name")`: a fixed attribute, written as a
            // string literal (which the `mentioned` rule counts), not a lookup by a computed name.
            if lang == "python" && matches!(site.name.as_str(), "getattr" | "hasattr") {
                let text = texts
                    .entry(site.path.clone())
                    .or_insert_with(|| repo.source_text(&site.path).unwrap_or_default());
                let line = text.lines().nth(site.line.saturating_sub(1) as usize);
                if line.is_some_and(|l| literal_attribute_calls(l, &site.name)) {
                    continue;
                }
            }
            if let Some(t) = enclosing_type(g, src) {
                reflective_types.insert(t);
            }
            reflective_files.insert(site.path.clone());
        }
        let reflective_types = with_subtypes(g, reflective_types);
        // Bases outside the repository.
        let mut external: HashSet<Ix> = HashSet::new();
        let mut external_names: HashMap<Ix, Vec<String>> = HashMap::new();
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
                external_names.entry(src).or_default().push(b.name.clone());
            } else if let Some(imp) = &b.implementor {
                let short = imp.rsplit([':', '.']).next().unwrap_or(imp);
                for &t in by_name_in_file
                    .get(&(b.path.as_str(), short))
                    .into_iter()
                    .flatten()
                {
                    external.insert(t);
                    external_names.entry(t).or_default().push(b.name.clone());
                }
            }
        }
        // Types whose outside bases are all data-model or form bases with known hooks.
        let mut known_hooks: HashMap<Ix, Vec<&'static FrameworkBase>> = HashMap::new();
        for &t in &external {
            let names = external_names.get(&t).map(Vec::as_slice).unwrap_or(&[]);
            let bases: Option<Vec<&'static FrameworkBase>> = names
                .iter()
                .map(|n| {
                    let short = n.rsplit(['.', ':']).next().unwrap_or(n);
                    let short = short.split('[').next().unwrap_or(short);
                    FRAMEWORK_BASES.iter().find(|b| b.names.contains(&short))
                })
                .collect();
            if let Some(bases) = bases.filter(|b| !b.is_empty()) {
                known_hooks.insert(t, bases);
            }
        }
        let external_based = with_subtypes(g, external.clone());
        // The in-repository bases of a type with an outside base (its own or inherited) that
        // have no outside base themselves (mixins, `class Api(Mixin, BaseApi)` with `BaseApi`
        // deriving from an outside class): their methods may override the outside base's.
        let mut mixed_into: HashMap<Ix, Ix> = HashMap::new();
        let mut direct: Vec<Ix> = external_based.iter().copied().collect();
        direct.sort_unstable();
        for t in direct {
            let mut stack = vec![t];
            let mut seen: HashSet<Ix> = HashSet::new();
            while let Some(a) = stack.pop() {
                if !seen.insert(a) {
                    continue;
                }
                // An interface declares, it does not implement: not a mixin.
                if a != t && !external_based.contains(&a) && g.node(a).kind != NodeKind::Interface {
                    mixed_into.entry(a).or_insert(t);
                }
                for e in g
                    .out_of_kind(a, EdgeKind::Inherits)
                    .iter()
                    .chain(g.out_of_kind(a, EdgeKind::Implements))
                {
                    stack.push(e.other);
                }
            }
        }
        // A type deriving (in the repository) from any other outside base is open.
        let mut hooks_of: HashMap<Ix, Vec<&'static FrameworkBase>> = HashMap::new();
        for &t in &external_based {
            let mut all: Vec<&'static FrameworkBase> = Vec::new();
            let mut open = false;
            let mut seen: HashSet<Ix> = HashSet::new();
            let mut stack = vec![t];
            while let Some(a) = stack.pop() {
                if !seen.insert(a) {
                    continue;
                }
                if external.contains(&a) {
                    match known_hooks.get(&a) {
                        Some(h) => all.extend(h.iter().copied()),
                        None => open = true,
                    }
                }
                for e in g
                    .out_of_kind(a, EdgeKind::Inherits)
                    .iter()
                    .chain(g.out_of_kind(a, EdgeKind::Implements))
                {
                    stack.push(e.other);
                }
            }
            if !open && !all.is_empty() {
                hooks_of.insert(t, all);
            }
        }
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
        // Methods something uses, by name (an override is no use of the method it overrides).
        let deps = use_edges();
        let mut called_methods: HashMap<String, Vec<Ix>> = HashMap::new();
        let mut module_files: HashSet<String> = HashSet::new();
        for ix in 0..g.len() as Ix {
            let n = g.node(ix);
            if n.kind == NodeKind::Method && referenced(g, ix, &deps) {
                called_methods.entry(n.name.clone()).or_default().push(ix);
            }
            if matches!(n.language.as_str(), "javascript" | "typescript" | "tsx")
                && (n.modifiers.split(',').any(|m| m == "export")
                    || (n.kind == NodeKind::File
                        && !g.out_of_kind(ix, EdgeKind::Imports).is_empty()))
            {
                module_files.insert(n.path.clone());
            }
        }
        let published_files = if config.exported_is_live {
            HashSet::new()
        } else {
            repo.published_files(g)
        };
        let mut interfaces: HashMap<&str, usize> = HashMap::new();
        for ix in 0..g.len() as Ix {
            let n = g.node(ix);
            if n.kind == NodeKind::Interface
                && matches!(n.language.as_str(), "typescript" | "tsx" | "javascript")
            {
                *interfaces.entry(n.name.as_str()).or_default() += 1;
            }
        }
        let merged_interfaces = interfaces
            .into_iter()
            .filter(|(_, c)| *c > 1)
            .map(|(n, _)| n.to_string())
            .collect();
        let mut interface_members: HashMap<String, Vec<Ix>> = HashMap::new();
        for ix in 0..g.len() as Ix {
            let n = g.node(ix);
            // TS interfaces and Python protocols (`class P(Protocol)`): structural types.
            let protocol = n.language == "python"
                && external_names.get(&ix).is_some_and(|names| {
                    names.iter().any(|b| {
                        let short = b.rsplit(['.', ':']).next().unwrap_or(b);
                        short.split('[').next() == Some("Protocol")
                    })
                });
            if protocol
                || n.kind == NodeKind::Interface
                    && matches!(n.language.as_str(), "typescript" | "tsx" | "javascript")
            {
                for e in g.out_of_kind(ix, EdgeKind::Contains) {
                    interface_members
                        .entry(g.node(e.other).name.clone())
                        .or_default()
                        .push(e.other);
                }
            }
        }
        let ModuleTexts {
            dynamic_imports,
            export_clauses,
            default_exports,
            default_files,
            object_members,
            stored_classes,
            alias_imports,
        } = repo.module_texts(g);
        Ok(Facts {
            live: HashSet::new(),
            mixed_into,
            object_members,
            stored_classes,
            alias_imports,
            default_exports,
            default_files,
            interface_members,
            dynamic_imports,
            export_clauses,
            exports_public: config.exported_is_live,
            published_files,
            merged_interfaces,
            unresolved,
            builtin_members,
            guessed,
            hierarchy,
            reflective_types,
            reflective_files,
            called_methods,
            module_files,
            external_based,
            hooks_of,
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
        if let Some(uses) = self.unresolved.get(&n.name) {
            let allowed = interoperating(&n.language);
            if let Some(u) = uses.iter().find(|u| {
                (allowed.is_empty() || allowed.contains(&u.language.as_str()))
                    && self.may_reach(g, u, ix)
            }) {
                let how = match &u.receiver {
                    Some(r) => format!("{r}.{}", n.name),
                    None => n.name.clone(),
                };
                return Some((
                    "unresolved_reference",
                    Some(format!(
                        "an unresolved {} reference {how} in {} ({})",
                        u.language, u.path, u.reason
                    )),
                ));
            }
        }
        // An override is reached through a call of a method it overrides (dispatch): unknown
        // when one of them is used, an entry point, or itself undecided; when every one of them
        // is dead, so is the override (as far as dispatch goes).
        let mut stack: Vec<Ix> = g
            .out_of_kind(ix, EdgeKind::Overrides)
            .iter()
            .map(|e| e.other)
            .collect();
        let mut seen: HashSet<Ix> = HashSet::new();
        while let Some(a) = stack.pop() {
            if a == ix || !seen.insert(a) {
                continue;
            }
            if self.live.contains(&a) || self.undecided(g, a).is_some() {
                return Some(("override", Some(g.node(a).qname.clone())));
            }
            stack.extend(
                g.out_of_kind(a, EdgeKind::Overrides)
                    .iter()
                    .map(|e| e.other),
            );
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
            && let Some(&other) = self
                .called_methods
                .get(&n.name)
                .into_iter()
                .flatten()
                .find(|&&m| m != ix && self.dispatch_may_reach(g, m, ix))
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
            let not_a_hook = self.hooks_of.get(&o).is_some_and(|bases| {
                !bases.iter().any(|b| {
                    b.hooks.contains(&n.name.as_str())
                        || b.hook_prefixes.iter().any(|p| n.name.starts_with(p))
                })
            });
            if !not_a_hook {
                return Some(("external_base", Some(g.node(o).qname.clone())));
            }
        }
        // A mixin: a class combined with an outside base in a subclass (`class Index(Mixin,
        // models.Index)`); its methods may override the outside base's.
        if let Some(o) = owner
            && let Some(&s) = self.mixed_into.get(&o)
        {
            let not_a_hook = self.hooks_of.get(&s).is_some_and(|bases| {
                !bases.iter().any(|b| {
                    b.hooks.contains(&n.name.as_str())
                        || b.hook_prefixes.iter().any(|p| n.name.starts_with(p))
                })
            });
            if !not_a_hook {
                return Some((
                    "external_base",
                    Some(format!("mixed into {}", g.node(s).qname)),
                ));
            }
        }
        let decos = decorators(&n.modifiers);
        if let Some(d) = decos.iter().find(|d| decorator_role(d) != Role::Inert) {
            return Some(("decorated", Some(format!("@{d}"))));
        }
        let js = matches!(n.language.as_str(), "typescript" | "tsx" | "javascript");
        if (js || n.language == "python")
            && matches!(n.kind, NodeKind::Function | NodeKind::Method)
            && self.interface_members.get(&n.name).is_some_and(|ms| {
                ms.iter().any(|&m| {
                    // Another structural type's member (not a member declared beside this
                    // one), used or public: an exported interface of a published file.
                    g.parent(m) != g.parent(ix)
                        && (g.node(m).language == "python") == (n.language == "python")
                        && (self.live.contains(&m)
                            || g.parent(m).is_some_and(|i| {
                                let i = g.node(i);
                                i.modifiers.split(',').any(|x| x == "export")
                                    && (self.exports_public
                                        || self.published_files.contains(&i.path))
                            }))
                })
            })
        {
            return Some((
                "structural",
                Some(format!("an interface declares a member {}", n.name)),
            ));
        }
        // `{ onStart() { ... } }`: a method of an object literal is called by whoever gets the
        // object (typed by an interface that may be outside the repository).
        if js && self.object_members.contains(&ix) {
            return Some(("object_member", None));
        }
        // `class TelemetryLogger` beside an outside `theia.TelemetryLogger`: an implementation of
        // the outside type in all but name (structural typing), used through it outside.
        if js
            && let Some(o) = owner
            && let Some(u) = self.unresolved.get(&g.node(o).name).and_then(|uses| {
                uses.iter().find(|u| {
                    u.reason == "external"
                        && u.receiver.is_some()
                        && matches!(u.language.as_str(), "typescript" | "tsx" | "javascript")
                })
            })
        {
            return Some((
                "structural",
                Some(format!(
                    "an outside type {}.{} has its class's name",
                    u.receiver.as_deref().unwrap_or_default(),
                    g.node(o).name
                )),
            ));
        }
        // `{ Position }`, `Position: Position`: the class itself is handed over as a value, and
        // whoever gets it may call any of its members.
        if js
            && let Some(o) = owner
            && self.stored_classes.contains(&g.node(o).name)
        {
            return Some((
                "escaping",
                Some(format!("{} is stored in an object literal", g.node(o).name)),
            ));
        }
        // `import { x } from "~/api"`: a path alias (tsconfig `paths`, a bundler alias) the
        // resolver took for an outside package.
        if js
            && let Some((_, spec)) = self.alias_imports.get(&n.name).and_then(|v| {
                let stem = source_stem(&n.path);
                v.iter().find(|(tail, _)| {
                    stem == tail
                        || stem.ends_with(&format!("/{tail}"))
                        || stem.ends_with(&format!("/{tail}/index"))
                })
            })
        {
            return Some(("path_alias", Some(format!("imported from {spec:?}"))));
        }
        let exported = n.modifiers.split(',').any(|m| m == "export")
            || self
                .export_clauses
                .contains(&(n.path.clone(), n.name.clone()));
        if js
            && self.dynamic_imports.contains(&n.path)
            && (exported || self.default_files.contains(&n.path))
        {
            return Some(("dynamic_import", Some(n.path.clone())));
        }
        if js
            && self
                .default_exports
                .contains(&(n.path.clone(), n.name.clone()))
        {
            return Some(("default_export", None));
        }
        // `declare module "x" { interface Y { ... } }`, `declare global { ... }`: merged into a
        // declaration elsewhere (often outside the repository), never named.
        if js
            && g.parent(ix)
                .is_some_and(|p| g.node(p).kind == NodeKind::Module)
        {
            return Some(("augmentation", Some(g.node(g.parent(ix)?).qname.clone())));
        }
        // A top-level declaration a `.d.ts` file does not export: in a global declaration file
        // (`vite-env.d.ts`: `interface ImportMeta { ... }`) it merges into the global scope, where
        // the compiler and libraries use it by name.
        if js
            && !exported
            && n.path.ends_with(".d.ts")
            && g.parent(ix)
                .is_some_and(|p| g.node(p).kind == NodeKind::File)
        {
            return Some((
                "augmentation",
                Some(format!("{} declares it globally", n.path)),
            ));
        }
        if n.kind == NodeKind::Interface && self.merged_interfaces.contains(&n.name) {
            return Some((
                "merged",
                Some(format!("interface {} is declared more than once", n.name)),
            ));
        }
        if self
            .all_exports
            .contains(&(dir_of(&n.path).to_string(), n.name.clone()))
        {
            return Some(("exported", Some("__all__".into())));
        }
        // An export nothing in the repository imports: public API of a library, but in an
        // application (`exported_is_live = false`) only when its file is published.
        if exported && (self.exports_public || self.published_files.contains(&n.path)) {
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

impl Facts {
    /// Whether an unresolved reference could be a use of `ix` (same name): its kind must fit
    /// the definition, and what is known of its receiver must not rule the definition out.
    /// A plain name reaches a member or nested definition only from inside its holder (a class
    /// body, a closure); a plain name the resolver calls external (an import from outside the
    /// repository, a built-in) reaches nothing here. `recv.name` the resolver calls external,
    /// with `recv` one name, reaches a method only when `name` is a built-in member (the
    /// receiver may be unknown);
    /// `self.name` the enclosing type lacks reaches only methods of types in the same
    /// inheritance component; another receiver whose type resolved without the member reaches
    /// only methods of types in some inheritance relation. An unknown receiver reaches anything.
    fn may_reach(&self, g: &Graph, u: &Use, ix: Ix) -> bool {
        let n = g.node(ix);
        let is_type = n.kind.is_type_like() || n.kind == NodeKind::TypeAlias;
        match u.kind.as_str() {
            "type" | "inherit" | "implement" | "instantiate" if !is_type => return false,
            "write" => return false,
            _ => {}
        }
        // A use inside the definition itself (recursion, `super().save()` in `save`) is no use.
        let mut at = u.src;
        while let Some(a) = at {
            if a == ix {
                return false;
            }
            at = g.parent(a);
        }
        let owner = g.parent(ix).filter(|&p| g.node(p).kind.is_type_like());
        // `self.name`, `this.name`, `super().name` (the receiver itself, not an attribute of
        // it) reach only the enclosing type's own methods, its bases' and its subclasses': the
        // types of its inheritance component (a mixin is in the component of the class that
        // combines it), however many same-named methods the resolver saw elsewhere;
        // `super().name` never reaches the enclosing type's own.
        if let (Some(t), Some(recv)) = (owner, u.receiver.as_deref())
            && let Some(e) = u.src.and_then(|s| enclosing_type(g, s))
        {
            let recv = recv.trim();
            let same_component = e == t
                || self
                    .hierarchy
                    .get(&e)
                    .is_some_and(|c| self.hierarchy.get(&t) == Some(c));
            if matches!(recv, "super()" | "super") {
                return e != t && same_component;
            }
            if matches!(recv, "self" | "this" | "cls") {
                return same_component;
            }
        }
        // `this.items.get(...)` the resolver calls external: the field's declared type is an
        // outside one, whose methods are not here (a class of the repository implementing that
        // type is `external_base`).
        if let Some(recv) = u.receiver.as_deref()
            && u.reason == "external"
            && let Some((head, field)) = recv.trim().split_once('.')
            && matches!(head, "self" | "this")
            && !field.is_empty()
            && field
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        {
            return false;
        }
        if u.reason == "too_many_candidates" {
            return true;
        }
        let nested = g
            .parent(ix)
            .is_some_and(|p| g.node(p).kind != NodeKind::File);
        let Some(recv) = u.receiver.as_deref() else {
            // A plain name: a top-level definition of a fitting kind would have been found by
            // name, so only a use in the same file is left; a member or nested definition is
            // seen by plain name only inside what holds it (a class body, a closure).
            if !nested {
                return u.reason != "external" && u.path == n.path;
            }
            let holder = g.parent(ix);
            let mut at = u.src;
            while let Some(a) = at {
                if Some(a) == holder {
                    return true;
                }
                at = g.parent(a);
            }
            return false;
        };
        match u.reason.as_str() {
            "external" => {
                // `mod.name` / `typed.name` with `mod` imported from outside or `typed` declared
                // with an outside type cannot reach a method here (a subclass of the outside
                // type is `external_base`); a longer receiver (`g.project.name`: an attribute
                // of an outside object) may hold anything, and a module the resolver calls
                // outside may still be this repository's (a top-level function).
                let chain = recv.contains(['.', '(', '[']);
                chain
                    || owner.is_none()
                    || self
                        .builtin_members
                        .get(&u.language)
                        .is_some_and(|m| m.contains(&n.name))
            }
            "no_candidates" => {
                let head = recv
                    .split(['.', '(', '[', '?', '!'])
                    .next()
                    .unwrap_or(recv)
                    .trim();
                let self_like = matches!(head, "self" | "this" | "cls" | "super");
                match owner {
                    // `module.name` on a receiver that is not a known type (a module object,
                    // a dynamic import): a top-level function may be what it names.
                    None => !self_like,
                    Some(t) => {
                        if self_like {
                            match u.src.and_then(|s| enclosing_type(g, s)) {
                                Some(e) => {
                                    e == t
                                        || self
                                            .hierarchy
                                            .get(&e)
                                            .is_some_and(|c| self.hierarchy.get(&t) == Some(c))
                                }
                                None => true,
                            }
                        } else {
                            self.hierarchy.contains_key(&t) || self.external_based.contains(&t)
                        }
                    }
                }
            }
            _ => true,
        }
    }

    /// Whether a call that reached method `m` could also dispatch to the same-named method
    /// `ix`: when `m` was a guess at an unknown receiver, when both types are in one
    /// inheritance component (an override, a mixin), or when `m` is a member of a
    /// TypeScript/JavaScript interface (structural typing: a class may satisfy it without
    /// saying so).
    fn dispatch_may_reach(&self, g: &Graph, m: Ix, ix: Ix) -> bool {
        let (a, b) = (g.node(m), g.node(ix));
        let allowed = interoperating(&b.language);
        if !(allowed.is_empty() || allowed.contains(&a.language.as_str())) {
            return false;
        }
        if self.guessed.contains(&m) {
            return true;
        }
        let (Some(tm), Some(tx)) = (g.parent(m), g.parent(ix)) else {
            return true;
        };
        let structural = matches!(a.language.as_str(), "typescript" | "tsx" | "javascript");
        if structural && g.node(tm).kind == NodeKind::Interface {
            return true;
        }
        if !g.node(tm).kind.is_type_like() || !g.node(tx).kind.is_type_like() {
            return true;
        }
        self.hierarchy
            .get(&tm)
            .is_some_and(|c| self.hierarchy.get(&tx) == Some(c))
    }
}

/// An outside base class whose framework calls only a known set of methods of its subclasses:
/// a data model or a form. Other methods of a subclass are the application's own.
struct FrameworkBase {
    /// The base's name as written (last segment): `Model` for `db.Model` / `models.Model`.
    names: &'static [&'static str],
    hooks: &'static [&'static str],
    hook_prefixes: &'static [&'static str],
}

const FRAMEWORK_BASES: &[FrameworkBase] = &[
    // Django and Flask-SQLAlchemy models, SQLAlchemy declarative bases.
    FrameworkBase {
        names: &["Model", "DeclarativeBase", "DeclarativeBaseNoMeta"],
        hooks: &[
            "save",
            "delete",
            "clean",
            "clean_fields",
            "full_clean",
            "validate_unique",
            "validate_constraints",
            "get_absolute_url",
            "natural_key",
            "refresh_from_db",
            "from_db",
            "check",
            "get_deferred_fields",
            "serializable_value",
            "prepare_database_save",
            "query",
            "query_class",
            "metadata",
            "registry",
        ],
        hook_prefixes: &["__", "_get_", "_do_", "_perform_", "_save_", "_check_"],
    },
    // WTForms and Flask-WTF forms: `validate_<field>` runs with `validate()`; Django forms
    // (`forms.Form`): `clean_<field>` and `clean` run with `is_valid()`.
    FrameworkBase {
        names: &["Form", "FlaskForm", "BaseForm"],
        hooks: &[
            "validate",
            "validate_on_submit",
            "process",
            "populate_obj",
            "pre_validate",
            "post_validate",
            "Meta",
            "data",
            "errors",
            "clean",
            "full_clean",
            "is_valid",
            "has_changed",
            "changed_data",
            "add_error",
            "add_prefix",
            "add_initial_prefix",
            "get_initial_for_field",
            "get_context",
            "render",
            "media",
            "Media",
            "order_fields",
            "_post_clean",
            "_clean_fields",
            "_clean_form",
        ],
        hook_prefixes: &["__", "validate_", "clean_", "as_", "template_name"],
    },
    // Django model forms and formsets: `save` and the formset hooks besides the form's.
    FrameworkBase {
        names: &[
            "ModelForm",
            "BaseModelForm",
            "BaseFormSet",
            "BaseModelFormSet",
            "BaseInlineFormSet",
        ],
        hooks: &[
            "save",
            "save_m2m",
            "clean",
            "full_clean",
            "is_valid",
            "has_changed",
            "changed_data",
            "add_error",
            "add_prefix",
            "get_initial_for_field",
            "get_context",
            "render",
            "media",
            "Media",
            "Meta",
            "order_fields",
            "validate_unique",
            "_post_clean",
            "_clean_fields",
            "_clean_form",
            "_save_m2m",
            "_get_validation_exclusions",
            "get_form_kwargs",
            "get_queryset",
            "add_fields",
            "save_new",
            "save_existing",
            "save_new_objects",
            "save_existing_objects",
            "delete_existing",
            "total_form_count",
            "initial_form_count",
            "get_default_prefix",
            "get_deletion_widget",
            "get_ordering_widget",
            "non_form_errors",
            "management_form",
            "empty_form",
            "forms",
            "_construct_form",
            "_should_delete_form",
        ],
        hook_prefixes: &["__", "clean_", "as_", "template_name", "can_"],
    },
];

/// An unresolved reference, as the dead-code rules weigh it.
struct Use {
    language: String,
    kind: String,
    receiver: Option<String>,
    reason: String,
    /// The enclosing definition.
    src: Option<Ix>,
    path: String,
}

/// Types linked by `inherits`/`implements` edges (either way) → a component number; types in
/// no relation are left out.
fn hierarchy_components(g: &Graph) -> HashMap<Ix, usize> {
    let mut comp: HashMap<Ix, usize> = HashMap::new();
    let mut next = 0;
    for start in 0..g.len() as Ix {
        if comp.contains_key(&start) || !g.node(start).kind.is_type_like() {
            continue;
        }
        let linked = |t: Ix| {
            g.out_of_kind(t, EdgeKind::Inherits)
                .iter()
                .chain(g.out_of_kind(t, EdgeKind::Implements))
                .chain(g.in_of_kind(t, EdgeKind::Inherits))
                .chain(g.in_of_kind(t, EdgeKind::Implements))
                .map(|e| e.other)
                .collect::<Vec<Ix>>()
        };
        if linked(start).is_empty() {
            continue;
        }
        let mut stack = vec![start];
        comp.insert(start, next);
        while let Some(t) = stack.pop() {
            for o in linked(t) {
                if let std::collections::hash_map::Entry::Vacant(v) = comp.entry(o) {
                    v.insert(next);
                    stack.push(o);
                }
            }
        }
        next += 1;
    }
    comp
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
    /// (every file the walk finds, indexed or not: templates, settings, and the string literals
    /// of source files), read through `sextant-vfs`; prose (`.md`, `.rst`, `.txt`, ...) and the
    /// code, comments and docstrings of source files do not count (a name in a comment, a
    /// changelog or a commented-out call is not a use; one in code is a reference the other
    /// rules weigh). Names never written are left out.
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
                let path = f.path.as_str();
                if sextant_vfs::is_secret_path(path) || is_prose(path) {
                    return counts;
                }
                if let Ok(file) =
                    sextant_vfs::read_source(&walk.abs(f), 1 << 20, usize::MAX, usize::MAX)
                {
                    let text = strings_only(path, &file.text);
                    for m in re.find_iter(&text) {
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

    /// JavaScript/TypeScript files the repository's `package.json` files publish: the targets
    /// of `main`, `module`, `types`, `typings`, `browser`, `bin` and `exports` (wildcards
    /// included), matched with the extension dropped and a leading build directory (`dist/`,
    /// `build/`, `lib/`, `out/`) mapped back to the sources, plus every file a published file
    /// imports whole (`export * from`).
    fn published_files(&self, g: &Graph) -> HashSet<String> {
        let is_js = |l: &str| matches!(l, "typescript" | "tsx" | "javascript");
        let mut dirs: HashSet<String> = HashSet::new();
        let mut files: Vec<(Ix, &str)> = Vec::new();
        for ix in 0..g.len() as Ix {
            let n = g.node(ix);
            if n.kind == NodeKind::File && is_js(&n.language) {
                files.push((ix, n.path.as_str()));
                // Every ancestor directory ("" for the root).
                let mut d = n.path.as_str();
                while let Some((parent, _)) = d.rsplit_once('/') {
                    dirs.insert(parent.to_string());
                    d = parent;
                }
                dirs.insert(String::new());
            }
        }
        let mut patterns: Vec<regex::Regex> = Vec::new();
        for d in &dirs {
            let manifest = if d.is_empty() {
                "package.json".to_string()
            } else {
                format!("{d}/package.json")
            };
            let Ok((_, abs)) = sextant_vfs::confine(&self.root, &manifest) else {
                continue;
            };
            let Ok(file) = sextant_vfs::read_source(&abs, 4 << 20, usize::MAX, usize::MAX) else {
                continue;
            };
            let Ok(json) = serde_json::from_str::<serde_json::Value>(&file.text) else {
                continue;
            };
            let mut targets: Vec<String> = Vec::new();
            for key in [
                "main", "module", "types", "typings", "browser", "bin", "exports",
            ] {
                if let Some(v) = json.get(key) {
                    strings_in(v, &mut targets);
                }
            }
            for t in targets {
                if let Some(re) = published_pattern(d, &t) {
                    patterns.push(re);
                }
            }
        }
        let stem = |p: &str| -> String {
            let p = p.strip_suffix(".d.ts").unwrap_or(p);
            match p.rsplit_once('.') {
                Some((s, _)) if !s.ends_with('/') => s.to_string(),
                _ => p.to_string(),
            }
        };
        let mut out: HashSet<String> = HashSet::new();
        let mut stack: Vec<Ix> = Vec::new();
        for &(ix, path) in &files {
            let s = stem(path);
            if patterns.iter().any(|re| re.is_match(&s)) && out.insert(path.to_string()) {
                stack.push(ix);
            }
        }
        while let Some(f) = stack.pop() {
            for e in g.out_of_kind(f, EdgeKind::Imports) {
                let t = g.node(e.other);
                if t.kind == NodeKind::File && out.insert(t.path.clone()) {
                    stack.push(e.other);
                }
            }
        }
        out
    }

    /// Read from the JavaScript/TypeScript files' text (through `sextant-vfs`): the files
    /// loaded with a relative `import("...")` (resolved against the importing file, the
    /// extension dropped, `x` or `x/index`), the (path, name) pairs of local `export { a,
    /// b as c }` clauses (no `from`), default exports, and the files that have one.
    fn module_texts(&self, g: &Graph) -> ModuleTexts {
        let dynamic =
            regex::Regex::new(r#"import\(\s*["'`](\.{1,2}/[^"'`]+)["'`]\s*\)"#).expect("regex");
        let clause =
            regex::Regex::new(r"export\s*(?:type\s*)?\{([^}]*)\}(\s*from)?").expect("regex");
        let default = regex::Regex::new(
            r"(?m)export\s+default\s+(?:(?:async\s+)?function\*?\s*|(?:abstract\s+)?class\s+)?([A-Za-z_$][\w$]*)?",
        )
        .expect("regex");
        let mut stems: HashSet<String> = HashSet::new();
        let mut exports: HashSet<(String, String)> = HashSet::new();
        let mut default_exports: HashSet<(String, String)> = HashSet::new();
        let mut default_files: HashSet<String> = HashSet::new();
        let mut files: Vec<&str> = Vec::new();
        // Functions outside types, by file: (line, node).
        let mut functions: HashMap<&str, Vec<(u32, Ix)>> = HashMap::new();
        for ix in 0..g.len() as Ix {
            let n = g.node(ix);
            if !matches!(n.language.as_str(), "typescript" | "tsx" | "javascript") {
                continue;
            }
            if n.kind == NodeKind::File {
                files.push(n.path.as_str());
            } else if n.kind == NodeKind::Function
                && !g.parent(ix).is_some_and(|p| g.node(p).kind.is_type_like())
            {
                functions
                    .entry(n.path.as_str())
                    .or_default()
                    .push((n.start_line, ix));
            }
        }
        let mut object_members: HashSet<Ix> = HashSet::new();
        let mut stored_classes: HashSet<String> = HashSet::new();
        let mut alias_imports: HashMap<String, Vec<(String, String)>> = HashMap::new();
        let clauses = regex::Regex::new(
            r"(?s)\b(?:import|export)\s+(?:type\s+)?(?:[\w$]+\s*,\s*)?\{[^}]*\}|\b(?:const|let|var)\s*\{[^}]*\}\s*=",
        )
        .expect("regex");
        let shorthand = regex::Regex::new(r"[{,]\s*([A-Za-z_$][\w$]*)\s*[,}]").expect("regex");
        let pair = regex::Regex::new(r"\b([A-Za-z_$][\w$]*)\s*:\s*([A-Za-z_$][\w$]*)\s*[,}\n]")
            .expect("regex");
        let import = regex::Regex::new(
            r#"(?s)\bimport\s+(?:type\s+)?([^;]*?)\s+from\s*["']([^"'.][^"']*)["']"#,
        )
        .expect("regex");
        for path in &files {
            let Ok((_, abs)) = sextant_vfs::confine(&self.root, path) else {
                continue;
            };
            let Ok(file) = sextant_vfs::read_source(&abs, 4 << 20, usize::MAX, usize::MAX) else {
                continue;
            };
            if let Some(fns) = functions.get(path) {
                let lines: Vec<&str> = file.text.lines().collect();
                for &(line, ix) in fns {
                    let Some(l) = lines.get(line.saturating_sub(1) as usize) else {
                        continue;
                    };
                    if is_object_method(l) {
                        object_members.insert(ix);
                    }
                }
            }
            let bare = clauses.replace_all(&file.text, " ");
            let mut at = 0;
            while let Some(c) = shorthand.captures_at(&bare, at) {
                stored_classes.insert(c[1].to_string());
                at = c.get(0).map_or(bare.len(), |m| m.end() - 1);
            }
            for c in pair.captures_iter(&bare) {
                if c[1] == c[2] {
                    stored_classes.insert(c[1].to_string());
                }
            }
            for c in import.captures_iter(&file.text) {
                let spec = &c[2];
                let segs: Vec<&str> = spec.split('/').collect();
                let tail = if let Some(t) = spec.strip_prefix('#') {
                    t.to_string()
                } else if segs[0].len() > 1 && segs[0].starts_with('@') {
                    segs.get(2..).map(|s| s.join("/")).unwrap_or_default()
                } else {
                    segs[1..].join("/")
                };
                if tail.is_empty() {
                    continue;
                }
                let Some(open) = c[1].find('{') else { continue };
                let close = c[1].rfind('}').unwrap_or(c[1].len());
                for item in c[1][open + 1..close.max(open + 1)].split(',') {
                    let item = item.trim().trim_start_matches("type ").trim();
                    let name = item.split_whitespace().next().unwrap_or("");
                    if !name.is_empty() {
                        alias_imports
                            .entry(name.to_string())
                            .or_default()
                            .push((tail.clone(), spec.to_string()));
                    }
                }
            }
            for c in dynamic.captures_iter(&file.text) {
                let mut parts: Vec<&str> = path.split('/').collect();
                parts.pop();
                for seg in c[1].split('/') {
                    match seg {
                        "." | "" => {}
                        ".." => {
                            parts.pop();
                        }
                        s => parts.push(s),
                    }
                }
                let joined = parts.join("/");
                stems.insert(source_stem(&joined).to_string());
            }
            for c in default.captures_iter(&file.text) {
                default_files.insert(path.to_string());
                if let Some(name) = c.get(1) {
                    default_exports.insert((path.to_string(), name.as_str().to_string()));
                }
            }
            for c in clause.captures_iter(&file.text) {
                if c.get(2).is_some() {
                    continue;
                }
                for item in c[1].split(',') {
                    let item = item.trim().trim_start_matches("type ").trim();
                    let name = item.split_whitespace().next().unwrap_or("");
                    if !name.is_empty() {
                        exports.insert((path.to_string(), name.to_string()));
                    }
                }
            }
        }
        let loaded = files
            .iter()
            .filter(|p| {
                let s = source_stem(p);
                stems.contains(s) || s.strip_suffix("/index").is_some_and(|d| stems.contains(d))
            })
            .map(|p| p.to_string())
            .collect();
        for v in alias_imports.values_mut() {
            v.sort();
            v.dedup();
        }
        ModuleTexts {
            dynamic_imports: loaded,
            export_clauses: exports,
            default_exports,
            default_files,
            object_members,
            stored_classes,
            alias_imports,
        }
    }

    /// A source file's text, read through `sextant-vfs` (`None` when it cannot be read).
    fn source_text(&self, path: &str) -> Option<String> {
        let (_, abs) = sextant_vfs::confine(&self.root, path).ok()?;
        sextant_vfs::read_source(&abs, 16 << 20, usize::MAX, usize::MAX)
            .ok()
            .map(|f| f.text.to_string())
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

/// Whether every `name(...)` call on `line` has a string literal naming an identifier as its
/// second argument (`getattr(self, "x", None)`); false when there is none or an argument list
/// does not end on the line.
fn literal_attribute_calls(line: &str, name: &str) -> bool {
    let mut found = false;
    let mut rest = line;
    while let Some(at) = rest.find(name) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + name.len()..].trim_start();
        rest = &rest[at + name.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
            || !after.starts_with('(')
        {
            continue;
        }
        // The first argument: up to the first comma outside brackets and quotes.
        let args = &after[1..];
        let mut depth = 0i32;
        let mut quote: Option<char> = None;
        let mut second = None;
        for (i, c) in args.char_indices() {
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None => match c {
                    '"' | '\'' => quote = Some(c),
                    '(' | '[' | '{' => depth += 1,
                    ')' | ']' | '}' => {
                        if depth == 0 {
                            break;
                        }
                        depth -= 1;
                    }
                    ',' if depth == 0 => {
                        second = Some(&args[i + 1..]);
                        break;
                    }
                    _ => {}
                },
            }
        }
        let Some(second) = second.map(str::trim_start) else {
            return false;
        };
        let Some(q) = second.chars().next().filter(|c| matches!(c, '"' | '\'')) else {
            return false;
        };
        let body = &second[1..];
        let Some(end) = body.find(q) else {
            return false;
        };
        let ident = &body[..end];
        let tail = body[end + 1..].trim_start();
        if ident.is_empty()
            || !ident.chars().all(|c| c.is_alphanumeric() || c == '_')
            || !(tail.starts_with(',') || tail.starts_with(')'))
        {
            return false;
        }
        found = true;
    }
    found
}

/// Whether a definition's first line is a method written in an object literal (`onStart() {`,
/// `async get(x) {`, `*items() {`), not a `function` declaration or a `const f = ...`.
fn is_object_method(line: &str) -> bool {
    let mut l = line.trim_start();
    for p in ["async ", "*", "get ", "set "] {
        if let Some(r) = l.strip_prefix(p) {
            l = r.trim_start();
        }
    }
    let word: String = l
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '$')
        .collect();
    if word.is_empty()
        || matches!(
            word.as_str(),
            "function"
                | "export"
                | "const"
                | "let"
                | "var"
                | "declare"
                | "default"
                | "async"
                | "if"
                | "for"
                | "while"
                | "switch"
                | "catch"
                | "return"
                | "await"
                | "new"
                | "typeof"
        )
    {
        return false;
    }
    matches!(l[word.len()..].trim_start().chars().next(), Some('(' | '<'))
}

/// A path without its extension (`a/b.js` → `a/b`, `a/b.d.ts` → `a/b`).
fn source_stem(path: &str) -> &str {
    let p = path.strip_suffix(".d.ts").unwrap_or(path);
    match p.rsplit_once('.') {
        Some((s, e)) if !e.contains('/') && !s.is_empty() && !s.ends_with('/') => s,
        _ => p,
    }
}

/// Every string in a JSON value (objects and arrays walked).
fn strings_in(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|v| strings_in(v, out)),
        serde_json::Value::Object(o) => o.values().for_each(|v| strings_in(v, out)),
        _ => {}
    }
}

/// A `package.json` target (`./dist/src/config.js`, `./dist/src/types/*.js`) in directory
/// `dir` as a pattern over source stems (repository paths without extension): the build
/// directory may be absent from the sources (`src/config`) and `*` matches any path.
fn published_pattern(dir: &str, target: &str) -> Option<regex::Regex> {
    let t = target.trim().trim_start_matches("./");
    if t.is_empty() || t.starts_with("..") || t.contains("://") {
        return None;
    }
    let t = t.strip_suffix(".d.ts").unwrap_or(t);
    let t = match t.rsplit_once('.') {
        Some((s, e)) if !s.is_empty() && !e.contains('/') && !e.contains('*') => s,
        _ => t,
    };
    let t = t.trim_end_matches('/');
    let mut body = String::new();
    for (i, s) in t.split('/').enumerate() {
        if i == 0
            && matches!(
                s,
                "dist" | "build" | "lib" | "out" | "esm" | "cjs" | "types"
            )
        {
            body.push_str(&format!("(?:{}/)?", regex::escape(s)));
            continue;
        }
        if i > 0 && !body.ends_with(")?") {
            body.push('/');
        }
        let parts: Vec<String> = s.split('*').map(regex::escape).collect();
        body.push_str(&parts.join(".*"));
    }
    let prefix = if dir.is_empty() {
        String::new()
    } else {
        format!("{}/", regex::escape(dir))
    };
    // `dist/config` may come from `src/config`, `dist/index` from `index` or `src/index`; a
    // directory target means its `index`.
    regex::Regex::new(&format!("^{prefix}(?:src/)?{body}(?:/index)?$")).ok()
}

/// Documentation and prose files: a name written there is not a use.
fn is_prose(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    [".md", ".markdown", ".rst", ".txt", ".adoc", ".rdoc", ".pod"]
        .iter()
        .any(|e| name.ends_with(e))
        || matches!(
            name,
            "changelog" | "changes" | "authors" | "license" | "readme" | "news"
        )
}

/// How a file's comments are written, by extension.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CommentStyle {
    /// `#` to the end of the line; triple-quoted strings that start a statement (docstrings)
    /// count as comments too.
    Hash,
    /// `//` and `/* */`.
    Slash,
    /// Not source code (templates, settings): everything counts.
    None,
}

fn comment_style(path: &str) -> CommentStyle {
    let ext = path.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
    match ext {
        "py" | "pyi" | "rb" | "sh" => CommentStyle::Hash,
        "js" | "jsx" | "mjs" | "cjs" | "ts" | "tsx" | "mts" | "cts" | "rs" | "go" | "java"
        | "kt" | "kts" | "c" | "h" | "cc" | "cpp" | "hpp" | "cs" | "swift" | "scala" | "php" => {
            CommentStyle::Slash
        }
        _ => CommentStyle::None,
    }
}

/// The string literals of a source file (`"app.views.index"`, `'handler'`), everything else
/// blanked out: comments and Python docstrings are not uses, and names in code are references
/// the other rules already weigh. Other files (templates, settings) are returned as they are.
fn strings_only<'t>(path: &str, text: &'t str) -> std::borrow::Cow<'t, str> {
    let style = comment_style(path);
    if style == CommentStyle::None {
        return std::borrow::Cow::Borrowed(text);
    }
    let b = text.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    // Whether only whitespace precedes `i` on its line (a docstring starts a statement).
    let mut line_start = true;
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for &c in &b[from..to] {
            out.push(if c == b'\n' { b'\n' } else { b' ' });
        }
    };
    let line_end = |from: usize| {
        b[from..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(b.len(), |p| from + p)
    };
    while i < b.len() {
        let c = b[i];
        let rest = &b[i..];
        if (style == CommentStyle::Hash && c == b'#')
            || (style == CommentStyle::Slash && rest.starts_with(b"//"))
        {
            let end = line_end(i);
            blank(&mut out, i, end);
            i = end;
            continue;
        }
        if style == CommentStyle::Slash && rest.starts_with(b"/*") {
            let end = rest[2..]
                .windows(2)
                .position(|w| w == b"*/")
                .map_or(b.len(), |p| i + 2 + p + 2);
            blank(&mut out, i, end);
            i = end;
            continue;
        }
        if style == CommentStyle::Hash && (rest.starts_with(b"\"\"\"") || rest.starts_with(b"'''"))
        {
            let q = &rest[..3];
            let end = rest[3..]
                .windows(3)
                .position(|w| w == q)
                .map_or(b.len(), |p| i + 3 + p + 3);
            if line_start {
                blank(&mut out, i, end);
            } else {
                out.extend_from_slice(&b[i..end]);
            }
            i = end;
            line_start = false;
            continue;
        }
        if c == b'"' || c == b'\'' || (c == b'`' && style == CommentStyle::Slash) {
            // A string literal: kept, and a comment marker inside it is not one.
            let mut j = i + 1;
            while j < b.len() && b[j] != c && (b[j] != b'\n' || c == b'`') {
                j += if b[j] == b'\\' { 2 } else { 1 };
            }
            let end = (j + 1).min(b.len());
            out.extend_from_slice(&b[i..end]);
            i = end;
            line_start = false;
            continue;
        }
        // Code: blanked (a byte at a time keeps offsets and lines).
        out.push(if c == b'\n' { b'\n' } else { b' ' });
        if c == b'\n' {
            line_start = true;
        } else if !c.is_ascii_whitespace() {
            line_start = false;
        }
        i += 1;
    }
    std::borrow::Cow::Owned(String::from_utf8_lossy(&out).into_owned())
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
    fn comments_and_docstrings_are_not_mentions() {
        let py = "def f():\n    \"\"\"Calls old_name.\"\"\"\n    x = 'a # old_name'  # old_name()\n    y = \"\"\"kept old_name\"\"\"\n";
        let out = strings_only("m.py", py);
        assert_eq!(out.len(), py.len());
        assert_eq!(out.matches("old_name").count(), 2, "{out}");
        assert!(out.contains("'a # old_name'") && !out.contains("def f"));
        let ts = "// f()\nconst s = \"http://x\"; /* g()\n h() */ k(`a // b`);\n";
        let out = strings_only("a.ts", ts);
        assert!(!out.contains("f()") && !out.contains("g()") && !out.contains("h()"));
        assert!(out.contains("\"http://x\"") && out.contains("`a // b`") && !out.contains("k("));
        assert_eq!(out.lines().count(), ts.lines().count());
        let html = "{# old_name #}";
        assert_eq!(strings_only("t.html", html), html);
        assert!(is_prose("docs/CHANGES.rst") && is_prose("README.md") && !is_prose("a.html"));
    }

    #[test]
    fn package_json_targets_match_source_stems() {
        let re = published_pattern("", "./dist/src/config.js").unwrap();
        assert!(re.is_match("src/config") && re.is_match("dist/src/config"));
        assert!(!re.is_match("src/internal/config"));
        let re = published_pattern("", "./dist/src/types/*.js").unwrap();
        assert!(re.is_match("src/types/network") && !re.is_match("src/internal/x"));
        let re = published_pattern("packages/a", "./lib/index.d.ts").unwrap();
        assert!(re.is_match("packages/a/src/index") && re.is_match("packages/a/index"));
        assert!(published_pattern("", "../x.js").is_none());
        assert!(published_pattern("", "https://x").is_none());
    }

    #[test]
    fn all_literals() {
        assert_eq!(
            string_literals("__all__ = [\n  'a', \"b_c\",  # 'not'\n 'x y']"),
            vec!["a", "b_c"]
        );
    }

    #[test]
    fn object_literal_methods_are_told_from_declarations() {
        assert!(is_object_method("        onStart(): MaybePromise<void> {"));
        assert!(is_object_method("  async *items<T>(x: T) {"));
        assert!(is_object_method("  get size() {"));
        assert!(!is_object_method("function onStart() {"));
        assert!(!is_object_method("export async function onStart() {"));
        assert!(!is_object_method("const onStart = () => {"));
        assert!(!is_object_method("  if (x) {"));
        assert!(!is_object_method(""));
    }

    #[test]
    fn getattr_with_a_literal_name_is_no_lookup_by_name() {
        assert!(literal_attribute_calls(
            "    return getattr(obj, \"name\", None)",
            "getattr"
        ));
        assert!(literal_attribute_calls(
            "x = hasattr(f(a, b), 'y') and hasattr(g, 'z')",
            "hasattr"
        ));
        assert!(!literal_attribute_calls("getattr(obj, attr)", "getattr"));
        assert!(!literal_attribute_calls(
            "getattr(obj, f'get_{x}')",
            "getattr"
        ));
        assert!(!literal_attribute_calls("getattr(obj, 'a' + b)", "getattr"));
        assert!(!literal_attribute_calls("getattr(", "getattr"));
        assert!(!literal_attribute_calls("mygetattr(obj, 'a')", "getattr"));
    }
}
