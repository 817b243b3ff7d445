//! The live index (issue 5): a published generation held in memory (every file's facts and its
//! resolved edges), updated in place when files change and republished as a new generation that
//! shares every untouched file's edge set with its predecessor.
//!
//! An update re-extracts only the changed files, rebuilds the resolver's tables from memory (no
//! walk, no database load), re-resolves the references of the files the change can affect, and
//! writes only the edge sets that came out different. A moved HEAD whose tree equals a clean
//! baseline of the new commit (a checkout of an indexed commit) publishes that baseline's rows
//! as they are (`try_switch`). What it cannot do incrementally falls back to the full pipeline
//! ([`crate::index`]) and moves memory to the result, loading only what differs (`move_to`):
//! another moved HEAD (a new commit or checkout), an edited `.gitignore` / `.sextantignore` /
//! manifest, or a change touching more than [`FULL_THRESHOLD`] of the files; another process
//! having published is loaded the same way.
//!
//! Which files an edit can affect (re-resolved whole, so receiver typing within a file stays
//! consistent): the changed files; files with an edge into a definition of the changed files'
//! old versions; files with a reference *named* like a definition of the old or new versions
//! (hub names such as `get` make this large, but it stays name-indexed); files whose import
//! edges changed; and files holding subclasses (transitively) of the changed files' classes.
//! The property test (`tests/live.rs`) checks the result equals a full index of the final tree.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};
use sextant_lang::{Language, ModuleStyle, Registry};
use sextant_model::{Confidence, EdgeKind, NodeKind, Provenance, RefKind};
use sextant_resolve as resolve;
use sextant_store::{EdgeRow, GenFile, Store, UnresolvedRow};
use sextant_vfs::{ReadError, SkipReason, SourceFile, WalkConfig, read_source};

use crate::home::DataDir;
use crate::layout::Layout;
use crate::pipeline::{
    EdgeKey, Extracted, ResolverInputs, RuleBook, UnresolvedKey, absorb_rows, extractor_version,
    file_rows, is_declaration_modifier, lock, manifests, set_hash,
};
use crate::types::IndexSummary;
use crate::{Error, IndexOptions, Progress, Result};

/// Above this share of the indexed files changed at once, an update runs the full pipeline.
pub const FULL_THRESHOLD: f64 = 0.2;

/// Files whose change means the layout or the walk itself changed: the full pipeline runs.
const STRUCTURAL: &[&str] = &[
    ".gitignore",
    ".ignore",
    ".sextantignore",
    "Cargo.toml",
    "package.json",
    "go.mod",
];

/// A file whose change runs the full pipeline: [`STRUCTURAL`] names and TypeScript's
/// `tsconfig*.json` (their `paths` aliases are part of resolution).
fn is_structural(name: &str) -> bool {
    STRUCTURAL.contains(&name) || (name.starts_with("tsconfig") && name.ends_with(".json"))
}

/// One indexed file in memory.
struct LiveFile {
    ctx: resolve::FileCtx,
    language: Arc<Language>,
    hash: String,
    uncommitted: bool,
    /// Its edge set in the current generation, and that set's content fingerprint.
    set: i64,
    set_hash: Option<i64>,
    symbols: Vec<resolve::Symbol>,
    refs: Vec<resolve::Ref>,
    imports: Vec<resolve::Imp>,
    bindings: Vec<resolve::Bind>,
    /// Edges leaving the file and its unresolved references, in canonical order.
    edges: Vec<resolve::Edge>,
    unresolved: Vec<resolve::Unresolved>,
    /// `edges` by (kind, provenance) and `unresolved` by reason, for the generation's summary.
    tally: Tally,
    /// Hashes of the names its references use (built on first need): which files may resolve
    /// differently when definitions so named appear or vanish, without hashing every reference
    /// of the repository on each edit.
    ref_names: std::sync::OnceLock<FxHashSet<u64>>,
}

/// The hash [`LiveFile::refers_to_any`] compares names by.
fn name_hash(name: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    name.hash(&mut h);
    h.finish()
}

impl LiveFile {
    /// Whether a reference of this file uses one of the names hashed in `names`.
    fn refers_to_any(&self, names: &[u64]) -> bool {
        let own = self
            .ref_names
            .get_or_init(|| self.refs.iter().map(|r| name_hash(&r.name)).collect());
        names.iter().any(|n| own.contains(n))
    }
}

#[derive(Default)]
struct Tally {
    edges: Vec<((EdgeKind, Provenance), u64)>,
    unresolved: Vec<(&'static str, u64)>,
}

impl Tally {
    fn of(edges: &[resolve::Edge], unresolved: &[resolve::Unresolved]) -> Tally {
        let mut t = Tally::default();
        for e in edges {
            let key = (e.kind, e.provenance);
            match t.edges.iter_mut().find(|(k, _)| *k == key) {
                Some((_, n)) => *n += 1,
                None => t.edges.push((key, 1)),
            }
        }
        for u in unresolved {
            match t.unresolved.iter_mut().find(|(k, _)| *k == u.reason) {
                Some((_, n)) => *n += 1,
                None => t.unresolved.push((u.reason, 1)),
            }
        }
        t
    }
}

/// What one update did.
#[derive(Debug, Clone, Default)]
pub struct LiveUpdate {
    /// The generation published (`None`: nothing had changed).
    pub generation: Option<i64>,
    /// The full pipeline ran instead, and why.
    pub full: Option<String>,
    pub files_changed: u64,
    pub files_added: u64,
    pub files_deleted: u64,
    /// Files whose references were resolved again.
    pub files_resolved: u64,
    /// Edge sets written (the rest are shared with the previous generation).
    pub sets_written: u64,
    pub references_resolved: u64,
    /// The resolver's tables were patched in place (every changed file kept its shape) rather
    /// than rebuilt.
    pub resolver_patched: bool,
    pub wall_seconds: f64,
    /// Seconds per phase.
    pub phases: Vec<(String, f64)>,
    /// The summary stored with the published generation (`None` when nothing was published).
    pub summary: Option<IndexSummary>,
}

/// What a workspace's live index does differently ([`crate::workspace`]): it loads a given
/// generation (not the active one), reads the paths an update names from `texts` instead of the
/// disk (`None`: deleted in the workspace; paths absent from `texts` are read from disk), never
/// runs the full pipeline (a moved HEAD, a structural file or many changed files are plain
/// updates), and publishes beside the active generation without flipping it
/// ([`sextant_store::GenerationBuilder::publish_detached`]). `on_publish` runs right after, under
/// the index lock (so garbage collection cannot take the new generation before it is recorded).
pub(crate) struct Overlay {
    pub(crate) generation: i64,
    pub(crate) texts: FxHashMap<String, Option<String>>,
    pub(crate) on_publish: Option<OnPublish>,
}

/// A generation's id, start time and summary (the summary's wall time makes it unique).
pub(crate) type GenerationFingerprint = (i64, i64, Option<String>);

/// Called with the store and the generation a workspace update published.
pub(crate) type OnPublish = Box<dyn FnOnce(&mut Store, i64) -> Result<()> + Send>;

/// A published generation in memory, kept current by [`LiveIndex::update`].
pub struct LiveIndex {
    root: PathBuf,
    data: DataDir,
    options: IndexOptions,
    registry: Registry,
    book: RuleBook,
    versions: FxHashMap<String, String>,
    generation: i64,
    commit: Option<String>,
    branch: Option<String>,
    /// By path (the order resolution is fed in).
    files: BTreeMap<String, LiveFile>,
    skipped: BTreeMap<String, (&'static str, u64)>,
    cargo: Vec<(String, Option<String>)>,
    npm_packages: Vec<(String, String)>,
    layout: Layout,
    /// Blob ids of the commit's files (uncommitted = differs), read when an update first needs
    /// them after the commit changed (`None` until then).
    head_blobs: Option<crate::blobs::TreeBlobs>,
    /// The database, kept open between updates.
    store: Option<Store>,
    /// The resolver over `files`, kept between updates: an edit that keeps a file's shape
    /// (its definitions, imports and inheritance clauses) patches it instead of rebuilding.
    resolver: Option<ResolverState>,
    /// Generations published since garbage was last collected.
    uncollected: u32,
    /// Set for a workspace's live index.
    overlay: Option<Overlay>,
}

/// An update collects garbage itself when this many generations went uncollected (callers that
/// never call [`LiveIndex::collect_garbage`]).
const GC_EVERY: u32 = 16;

/// A resolver built over the live files, with what it was built from.
struct ResolverState {
    resolver: resolve::Resolver,
    /// Ids of the inheritance and implementation clauses (resolved before the other references).
    inherit_ids: FxHashSet<i64>,
}

/// A resolver for the current files and the edges it derives globally, per file: import edges,
/// inheritance results and overrides.
struct Built {
    state: ResolverState,
    /// After a rebuild, every file's (a file missing has none); after a patch, only the files
    /// whose derived edges changed (a file missing keeps the ones it has).
    global: FxHashMap<i64, (Vec<resolve::Edge>, Vec<resolve::Unresolved>)>,
    /// (derived, base) pairs of the inheritance edges in `global`.
    new_inherits: Vec<(i64, i64)>,
    /// The resolver was patched, not rebuilt.
    patched: bool,
    /// References elsewhere named like a changed file's definitions may resolve differently:
    /// after a rebuild (definitions appeared or vanished), or after a patch that changed an
    /// attribute's typed binding (`self.x = Foo()` types `obj.x` wherever it is written).
    names_matter: bool,
    /// After a patch: the unchanged files with an edge into a changed file that must be
    /// resolved again (the others keep their edges, renamed by `renamed`).
    pointing: Option<FxHashSet<i64>>,
    /// After a patch: old → new ids of the changed files' nodes that were kept.
    renamed: FxHashMap<i64, i64>,
    /// After a patch that added or removed definitions (and changed no attribute binding or
    /// declared type): their names, the only ones whose references may resolve differently.
    changed_names: Option<FxHashSet<String>>,
}

/// Free places after each file's run of the resolver's symbol table: an edit adding up to this
/// many definitions to a file moves no other position (see `resolve::Resolver::replace_file`).
const SPARE_PLACES: usize = 8;

/// Builds the resolver's tables from memory, in path order (as the full pipeline feeds them),
/// and resolves imports, out-of-line members, inheritance and overrides.
fn build_resolver(
    files: &BTreeMap<String, LiveFile>,
    rules: &[resolve::LangRules],
    npm_packages: &[(String, String)],
    phases: &mut Vec<(String, f64)>,
) -> Built {
    let mut last = Instant::now();
    let mut mark = |name: &str, phases: &mut Vec<(String, f64)>| {
        phases.push((name.to_string(), last.elapsed().as_secs_f64()));
        last = Instant::now();
    };
    let mut r_files = Vec::with_capacity(files.len());
    let mut r_symbols = Vec::new();
    let mut r_bindings = Vec::new();
    let mut r_imports = Vec::new();
    let mut r_inherit = Vec::new();
    let mut node_file: FxHashMap<i64, i64> = FxHashMap::default();
    for f in files.values() {
        r_files.push(f.ctx.clone());
        node_file.insert(f.ctx.node, f.ctx.id);
        for s in &f.symbols {
            node_file.insert(s.id, s.file);
        }
        r_symbols.extend(f.symbols.iter().cloned());
        r_bindings.extend(f.bindings.iter().cloned());
        r_imports.extend(f.imports.iter().cloned());
        r_inherit.extend(
            f.refs
                .iter()
                .filter(|r| matches!(r.kind, RefKind::Inherit | RefKind::Implement))
                .cloned(),
        );
    }
    mark("resolver.flatten", phases);
    let resolver =
        resolve::Resolver::with_spare_places(r_files, r_symbols, rules.to_vec(), SPARE_PLACES);
    mark("resolver.new", phases);
    let mut resolver = resolver
        .with_bindings(r_bindings)
        .with_packages(npm_packages.to_vec());
    mark("resolver.bindings", phases);
    let import_edges = resolver.resolve_imports(&r_imports);
    mark("resolver.imports", phases);
    resolver.link_out_of_line_members();
    let inherited = resolver.resolve_inheritance(&r_inherit);
    mark("resolver.inheritance", phases);
    let overrides = resolver.overrides();
    mark("resolver.overrides", phases);

    let mut global: FxHashMap<i64, (Vec<resolve::Edge>, Vec<resolve::Unresolved>)> =
        FxHashMap::default();
    let imp_file: FxHashMap<i64, i64> = r_imports.iter().map(|i| (i.id, i.file)).collect();
    for e in import_edges {
        if let Some(&f) = e.import_id.and_then(|i| imp_file.get(&i)) {
            global.entry(f).or_default().0.push(e);
        }
    }
    let inherit_file: FxHashMap<i64, i64> = r_inherit.iter().map(|r| (r.id, r.file)).collect();
    let mut new_inherits: Vec<(i64, i64)> = Vec::new();
    for (ref_id, resolution) in inherited {
        let Some(&f) = inherit_file.get(&ref_id) else {
            continue;
        };
        let slot = global.entry(f).or_default();
        match resolution {
            resolve::Resolution::Edges(edges) => {
                for e in &edges {
                    new_inherits.push((e.src, e.dst));
                }
                slot.0.extend(edges);
            }
            resolve::Resolution::Unresolved(u) => slot.1.push(u),
        }
    }
    for e in overrides {
        if let Some(&f) = node_file.get(&e.src) {
            global.entry(f).or_default().0.push(e);
        }
    }
    let inherit_ids = inherit_file.keys().copied().collect();
    // Freeing hundreds of thousands of strings takes longer than building the answer.
    std::thread::spawn(move || drop((r_imports, r_inherit, node_file)));
    Built {
        state: ResolverState {
            resolver,
            inherit_ids,
        },
        global,
        new_inherits,
        patched: false,
        names_matter: true,
        pointing: None,
        renamed: FxHashMap::default(),
        changed_names: None,
    }
}

/// Two lists of the same length whose items pair up under `same`.
fn pairwise<T>(a: &[T], b: &[T], same: impl Fn(&T, &T) -> bool) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
}

/// Patches `state` for the files in `fresh` when each is a new version of the same shape as the
/// one it replaces (see `resolve::Resolver::replace_file`; imports and inheritance
/// clauses are checked here), and derives the global edges by renaming ids in the previous ones.
/// `None` when any file changed shape (the state is then dropped: the caller rebuilds).
fn patch_resolver(
    mut state: ResolverState,
    olds: &FxHashMap<String, LiveFile>,
    files: &BTreeMap<String, LiveFile>,
    fresh: &FxHashSet<i64>,
) -> Option<Built> {
    match patch_in_place(&mut state, olds, files, fresh) {
        Some(patch) => Some(Built {
            state,
            global: patch.global,
            new_inherits: patch.new_inherits,
            patched: true,
            names_matter: patch.names_matter,
            pointing: Some(patch.pointing),
            renamed: patch.renamed,
            changed_names: patch.changed_names,
        }),
        None => {
            // Freeing hundreds of thousands of strings takes longer than rebuilding them.
            std::thread::spawn(move || drop(state));
            None
        }
    }
}

/// What [`patch_in_place`] derives besides the patched resolver.
struct Patch {
    global: FxHashMap<i64, (Vec<resolve::Edge>, Vec<resolve::Unresolved>)>,
    new_inherits: Vec<(i64, i64)>,
    names_matter: bool,
    pointing: FxHashSet<i64>,
    renamed: FxHashMap<i64, i64>,
    changed_names: Option<FxHashSet<String>>,
}

/// [`patch_resolver`]'s work; `None` leaves `state` unusable (possibly half patched).
fn patch_in_place(
    state: &mut ResolverState,
    olds: &FxHashMap<String, LiveFile>,
    files: &BTreeMap<String, LiveFile>,
    fresh: &FxHashSet<i64>,
) -> Option<Patch> {
    // Patches leave the replaced bindings behind: rebuild once they are many and a quarter of
    // the table.
    if state.resolver.dead_bindings() > 4096 && state.resolver.garbage_share() > 0.25 {
        return None;
    }
    let is_inherit = |r: &&resolve::Ref| matches!(r.kind, RefKind::Inherit | RefKind::Implement);
    let mut nodes: FxHashMap<i64, i64> = FxHashMap::default();
    let mut refs: FxHashMap<i64, i64> = FxHashMap::default();
    let mut imports: FxHashMap<i64, i64> = FxHashMap::default();
    let mut pairs: Vec<(&LiveFile, &LiveFile)> = Vec::new();
    let mut names_matter = false;
    // Every node of the replaced versions (edges into any of them must be looked at again).
    let mut old_ids: FxHashSet<i64> = FxHashSet::default();
    for f in files.values().filter(|f| fresh.contains(&f.ctx.id)) {
        let old = olds.get(&f.ctx.path)?;
        old_ids.insert(old.ctx.node);
        old_ids.extend(old.symbols.iter().map(|s| s.id));
        let map = resolve::match_symbols(old.ctx.node, &old.symbols, f.ctx.node, &f.symbols).map;
        let node = |id: i64| map.get(&id).copied().unwrap_or(id);
        if !pairwise(&old.imports, &f.imports, |o, n| {
            node(o.src) == n.src
                && o.source == n.source
                && o.name == n.name
                && o.alias == n.alias
                && o.wildcard == n.wildcard
        }) {
            return None;
        }
        let old_inherits: Vec<&resolve::Ref> = old.refs.iter().filter(is_inherit).collect();
        let new_inherits: Vec<&resolve::Ref> = f.refs.iter().filter(is_inherit).collect();
        if !pairwise(&old_inherits, &new_inherits, |o, n| {
            node(o.src) == n.src
                && o.kind == n.kind
                && o.name == n.name
                && o.receiver == n.receiver
                && o.implementor == n.implementor
        }) {
            return None;
        }
        for (o, n) in old_inherits.iter().zip(&new_inherits) {
            refs.insert(o.id, n.id);
        }
        for (o, n) in old.imports.iter().zip(&f.imports) {
            imports.insert(o.id, n.id);
        }
        // Attribute bindings (`self.x = ...`), as a multiset.
        let attributes = |binds: &[resolve::Bind], node: &dyn Fn(i64) -> i64| {
            let mut v: Vec<(i64, String, Option<String>, Option<String>)> = binds
                .iter()
                .filter(|b| b.name.contains('.'))
                .map(|b| {
                    (
                        node(b.scope),
                        b.name.clone(),
                        b.type_text.clone(),
                        b.value.clone(),
                    )
                })
                .collect();
            v.sort();
            v
        };
        if attributes(&old.bindings, &node) != attributes(&f.bindings, &|id| id) {
            names_matter = true;
        }
        pairs.push((old, f));
    }
    let mut reshaped = false;
    let mut every_name = names_matter;
    let mut changed_names: FxHashSet<String> = FxHashSet::default();
    for (old, f) in pairs {
        let replaced = state
            .resolver
            .replace_file(
                old.ctx.id,
                f.ctx.clone(),
                f.symbols.clone(),
                f.bindings.clone(),
            )
            .ok()?;
        nodes.extend(replaced.map);
        reshaped |= replaced.reshaped;
        changed_names.extend(replaced.changed);
        every_name |= replaced.retyped;
    }
    // Definitions appeared or vanished: references named like them may resolve differently.
    // A changed attribute binding or declared type makes every name of the file matter.
    names_matter |= every_name || !changed_names.is_empty();
    let changed_names = (!every_name).then_some(changed_names);
    // The global edges of the changed files and of the files pointing into them, as they were,
    // with ids renamed.
    let old_inherit_ids = std::mem::take(&mut state.inherit_ids);
    let mut global: FxHashMap<i64, (Vec<resolve::Edge>, Vec<resolve::Unresolved>)> =
        FxHashMap::default();
    let mut new_inherits: Vec<(i64, i64)> = Vec::new();
    let mut pointing: FxHashSet<i64> = FxHashSet::default();
    let node = |id: i64| nodes.get(&id).copied().unwrap_or(id);
    let derived = |e: &resolve::Edge| {
        e.import_id.is_some() || e.ref_id.is_none_or(|r| old_inherit_ids.contains(&r))
    };
    for f in files.values() {
        let is_fresh = fresh.contains(&f.ctx.id);
        let was = if is_fresh { olds.get(&f.ctx.path)? } else { f };
        // An unchanged file's edges start in it: only their targets can be renamed. Its
        // references resolve as before but for the ids (the tables are the same but for the
        // changed files' definitions, whose typed bindings only type their own references)
        // unless they reached a definition that vanished, or every name of the changed files
        // matters (an attribute binding or a declared type changed).
        if !is_fresh {
            if !was.edges.iter().any(|e| old_ids.contains(&e.dst)) {
                continue;
            }
            if every_name
                || was
                    .edges
                    .iter()
                    .any(|e| old_ids.contains(&e.dst) && !nodes.contains_key(&e.dst))
            {
                pointing.insert(f.ctx.id);
            }
        }
        let mut edges: Vec<resolve::Edge> = Vec::new();
        for e in &was.edges {
            if !derived(e) {
                continue;
            }
            let mut e = e.clone();
            e.src = node(e.src);
            e.dst = node(e.dst);
            e.ref_id = e.ref_id.map(|r| refs.get(&r).copied().unwrap_or(r));
            e.import_id = e.import_id.map(|i| imports.get(&i).copied().unwrap_or(i));
            if matches!(e.kind, EdgeKind::Inherits | EdgeKind::Implements) {
                new_inherits.push((e.src, e.dst));
            }
            edges.push(e);
        }
        let unresolved: Vec<resolve::Unresolved> = was
            .unresolved
            .iter()
            .filter(|u| old_inherit_ids.contains(&u.ref_id))
            .map(|u| {
                let mut u = u.clone();
                u.ref_id = refs.get(&u.ref_id).copied().unwrap_or(u.ref_id);
                u
            })
            .collect();
        global.insert(f.ctx.id, (edges, unresolved));
    }
    state.inherit_ids = old_inherit_ids
        .into_iter()
        .map(|r| refs.get(&r).copied().unwrap_or(r))
        .collect();
    if reshaped {
        // Override edges of the changed files' methods and of the types deriving from theirs.
        let resolver = &state.resolver;
        let mut scope: FxHashSet<i64> = fresh.clone();
        let mut roots: Vec<i64> = files
            .values()
            .filter(|f| fresh.contains(&f.ctx.id))
            .flat_map(|f| f.symbols.iter().filter(|s| s.kind.is_type_like()))
            .map(|s| s.id)
            .collect();
        let mut seen: FxHashSet<i64> = roots.iter().copied().collect();
        while let Some(c) = roots.pop() {
            for &d in resolver.derived_types(c) {
                if seen.insert(d) {
                    scope.extend(resolver.file_of(d));
                    roots.push(d);
                }
            }
        }
        let is_override = |e: &resolve::Edge| {
            e.kind == EdgeKind::Overrides && e.ref_id.is_none() && e.import_id.is_none()
        };
        let mut overrides: FxHashMap<i64, Vec<resolve::Edge>> = FxHashMap::default();
        for e in resolver.overrides_in(&scope) {
            if let Some(f) = resolver.file_of(e.src) {
                overrides.entry(f).or_default().push(e);
            }
        }
        let inherit_ids = &state.inherit_ids;
        for f in files.values().filter(|f| scope.contains(&f.ctx.id)) {
            let (edges, _) = global.entry(f.ctx.id).or_insert_with(|| {
                (
                    f.edges
                        .iter()
                        .filter(|e| {
                            e.import_id.is_some()
                                || e.ref_id.is_none_or(|r| inherit_ids.contains(&r))
                        })
                        .cloned()
                        .collect(),
                    f.unresolved
                        .iter()
                        .filter(|u| inherit_ids.contains(&u.ref_id))
                        .cloned()
                        .collect(),
                )
            });
            edges.retain(|e| !is_override(e));
            edges.extend(overrides.remove(&f.ctx.id).unwrap_or_default());
        }
    }
    Some(Patch {
        global,
        new_inherits,
        names_matter,
        pointing,
        renamed: nodes,
        changed_names,
    })
}

/// Rule names are a closed set of static strings in the resolver; stored ones are mapped back.
fn intern(rule: &str) -> &'static str {
    static RULES: Mutex<Vec<&'static str>> = Mutex::new(Vec::new());
    let mut rules = RULES.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(r) = rules.iter().find(|r| **r == rule) {
        return r;
    }
    let leaked: &'static str = Box::leak(rule.to_string().into_boxed_str());
    rules.push(leaked);
    leaked
}

fn edge_key(e: &resolve::Edge) -> impl Ord + '_ {
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

fn canonical(edges: &mut [resolve::Edge], unresolved: &mut [resolve::Unresolved]) {
    edges.sort_by(|a, b| edge_key(a).cmp(&edge_key(b)));
    unresolved.sort_by_key(|u| u.ref_id);
}

thread_local! {
    /// Git repositories of live indexes' roots, opened once per thread (gix's handle is not
    /// `Send`; a live index is: a workspace's is kept between refreshes run on any thread).
    static GIT: std::cell::RefCell<FxHashMap<PathBuf, sextant_git::OpenRepo>> =
        std::cell::RefCell::new(FxHashMap::default());
}

/// HEAD's commit and branch of `root` (none outside git; a repository is looked for again on
/// every call until one is found).
fn head_of_root(root: &Path) -> (Option<String>, Option<String>) {
    GIT.with(|repos| {
        let mut repos = repos.borrow_mut();
        if !repos.contains_key(root)
            && let Some(repo) = open_git(root)
        {
            repos.insert(root.to_path_buf(), repo);
        }
        match repos.get(root).map(|g| g.head()) {
            Some(Ok(h)) => (h.commit, h.branch),
            _ => (None, None),
        }
    })
}

/// The repository of `root` when `root` is the top of a git working tree.
fn open_git(root: &Path) -> Option<sextant_git::OpenRepo> {
    let in_git = sextant_git::discover(root)
        .and_then(|w| w.canonicalize().ok())
        .is_some_and(|w| w == root);
    in_git
        .then(|| sextant_git::OpenRepo::open(root).ok())
        .flatten()
}

/// Adds stored facts (nodes, references, imports, bindings) to the files they belong to.
fn fill_facts(by_id: &mut FxHashMap<i64, LiveFile>, facts: sextant_store::Reused) {
    for n in facts.nodes {
        if n.kind == NodeKind::File {
            continue;
        }
        if let Some(f) = by_id.get_mut(&n.file_id) {
            f.symbols.push(resolve::Symbol {
                id: n.id,
                file: n.file_id,
                kind: n.kind,
                declaration: n.modifiers.split(',').any(is_declaration_modifier),
                name: n.name,
                qname: n.qname,
                parent: n.parent_id,
                type_text: n.type_text,
            });
        }
    }
    for r in facts.refs {
        if let Some(f) = by_id.get_mut(&r.file_id) {
            f.refs.push(crate::pipeline::resolve_ref(r));
        }
    }
    for i in facts.imports {
        if let Some(f) = by_id.get_mut(&i.file_id) {
            f.imports.push(crate::pipeline::resolve_imp(i));
        }
    }
    for b in facts.bindings {
        if let Some(f) = by_id.get_mut(&b.file_id) {
            f.bindings.push(resolve::Bind {
                file: b.file_id,
                scope: b.scope_id,
                name: b.name,
                type_text: b.type_text,
                value: b.value,
            });
        }
    }
}

/// Adds stored edges and unresolved references to the files whose sets hold them.
fn fill_resolution(
    by_id: &mut FxHashMap<i64, LiveFile>,
    edges: Vec<sextant_store::StoredEdge>,
    unresolved: Vec<sextant_store::StoredUnresolved>,
) {
    for e in edges {
        let (Some(kind), Some(provenance), Some(confidence)) = (
            EdgeKind::parse(&e.kind),
            Provenance::parse(&e.provenance),
            Confidence::parse(&e.confidence),
        ) else {
            continue;
        };
        if let Some(f) = by_id.get_mut(&e.file_id) {
            f.edges.push(resolve::Edge {
                src: e.src,
                dst: e.dst,
                kind,
                provenance,
                confidence,
                rule: intern(&e.rule),
                ref_id: e.ref_id,
                import_id: e.import_id,
            });
        }
    }
    for u in unresolved {
        if let Some(f) = by_id.get_mut(&u.file_id) {
            f.unresolved.push(resolve::Unresolved {
                ref_id: u.ref_id,
                reason: intern(&u.reason),
                candidates: u.candidates,
            });
        }
    }
}

impl LiveIndex {
    /// Loads the published generation of `root` (indexing it first when nothing is published).
    pub fn open(root: &Path, options: &IndexOptions) -> Result<LiveIndex> {
        let root = root
            .canonicalize()
            .map_err(|e| Error::Io(format!("{}: {e}", root.display())))?;
        let home = options.home.clone().unwrap_or_else(crate::home::data_home);
        let data = DataDir::in_home(&home, &root);
        let published = data.exists()
            && Store::open(&data.db())
                .and_then(|s| s.active_generation_id())
                .is_ok_and(|g| g != 0);
        if !published {
            crate::index(&root, options, &|_| {})?;
        }
        let mut live = LiveIndex::unloaded(root, data, options)?;
        live.reload()?;
        live.prepare_languages();
        Ok(live)
    }

    /// Compiles the queries of the languages present now and hashes the files' reference names,
    /// not on the first edit.
    fn prepare_languages(&self) {
        let mut languages: Vec<Arc<Language>> = Vec::new();
        for f in self.files.values() {
            if !languages.iter().any(|l| l.id() == f.language.id()) {
                languages.push(f.language.clone());
            }
        }
        languages.par_iter().for_each(|l| {
            let _ = sextant_extract::prepare(l);
        });
        // And the files' reference names, so the first edit does not hash them all.
        let files: Vec<&LiveFile> = self.files.values().collect();
        files.par_iter().for_each(|f| {
            f.refers_to_any(&[]);
        });
    }

    /// Loads `overlay.generation` of `root` (which must be indexed) as a workspace's live index.
    pub(crate) fn open_overlay(
        root: &Path,
        options: &IndexOptions,
        overlay: Overlay,
    ) -> Result<LiveIndex> {
        let root = root
            .canonicalize()
            .map_err(|e| Error::Io(format!("{}: {e}", root.display())))?;
        let home = options.home.clone().unwrap_or_else(crate::home::data_home);
        let data = DataDir::in_home(&home, &root);
        let mut live = LiveIndex::unloaded(root, data, options)?;
        live.overlay = Some(overlay);
        live.reload()?;
        Ok(live)
    }

    /// Gives a workspace's live index, kept from its last refresh, the overlay of the next one.
    pub(crate) fn set_overlay(&mut self, overlay: Overlay) {
        self.overlay = Some(overlay);
    }

    /// What tells this index's generation from another that reused its id after garbage
    /// collection: (id, start time, summary).
    pub(crate) fn fingerprint(&mut self) -> Result<Option<GenerationFingerprint>> {
        let store = match self.store.take() {
            Some(store) => store,
            None => Store::open(&self.data.db())?,
        };
        let found = store.generation(self.generation);
        self.store = Some(store);
        Ok(found?.map(|g| (g.id, g.started_at, g.stats)))
    }

    /// Definitions of the indexed file at `path` (0 when it is not indexed).
    pub(crate) fn symbol_count(&self, path: &str) -> usize {
        self.files.get(path).map_or(0, |f| f.symbols.len())
    }

    /// Reads `rel` for an update: a workspace's text when it has one, else the disk.
    fn read(&self, rel: &str, abs: &Path, max: u64) -> std::result::Result<SourceFile, ReadError> {
        match self.overlay.as_ref().and_then(|o| o.texts.get(rel)) {
            Some(Some(text)) => Ok(SourceFile {
                hash: sextant_vfs::blob_id(text.as_bytes()),
                size: text.len() as u64,
                text: text.clone(),
                lossy: false,
                stat: None,
            }),
            Some(None) => Err(ReadError {
                reason: SkipReason::Unreadable,
                detail: "deleted in the workspace".into(),
            }),
            None => read_source(abs, max, 10_000, 400),
        }
    }

    /// Whether `rel` exists for an update (a workspace's overlay decides for its paths).
    fn exists(&self, rel: &str, abs: &Path) -> bool {
        match self.overlay.as_ref().and_then(|o| o.texts.get(rel)) {
            Some(text) => text.is_some(),
            None => std::fs::symlink_metadata(abs).is_ok(),
        }
    }

    fn unloaded(root: PathBuf, data: DataDir, options: &IndexOptions) -> Result<LiveIndex> {
        let registry = Registry::builtin()?;
        let versions = registry
            .languages()
            .iter()
            .map(|l| (l.id().to_string(), extractor_version(l)))
            .collect();
        Ok(LiveIndex {
            root,
            data,
            options: options.clone(),
            registry,
            book: RuleBook::default(),
            versions,
            generation: 0,
            commit: None,
            branch: None,
            files: BTreeMap::new(),
            skipped: BTreeMap::new(),
            cargo: Vec::new(),
            npm_packages: Vec::new(),
            layout: Layout::new([], &[]),
            head_blobs: None,
            store: None,
            resolver: None,
            uncollected: 0,
            overlay: None,
        })
    }

    /// Collects the generations earlier updates replaced (and what only they used), if any.
    /// Call when idle: an update does not wait for it.
    pub fn collect_garbage(&mut self) -> Result<bool> {
        if self.uncollected == 0 {
            return Ok(false);
        }
        let _lock = lock(&self.data, &|_: Progress| {})?;
        let mut store = match self.store.take() {
            Some(store) => store,
            None => Store::open(&self.data.db())?,
        };
        let result = store.collect_garbage(2);
        self.store = Some(store);
        result?;
        self.uncollected = 0;
        Ok(true)
    }

    /// The generation held in memory.
    pub fn generation(&self) -> i64 {
        self.generation
    }

    /// The indexed files' paths, sorted.
    pub fn paths(&self) -> Vec<String> {
        self.files.keys().cloned().collect()
    }

    /// Number of indexed files.
    pub fn file_count(&self) -> usize {
        self.files.len()
    }

    fn walk_config(&self) -> WalkConfig {
        let mut exclude = vec![self.data.dir.clone()];
        let home = self
            .options
            .home
            .clone()
            .unwrap_or_else(crate::home::data_home);
        if let Ok(home) = home.canonicalize() {
            exclude.push(home);
        }
        WalkConfig {
            max_file_size: self.options.max_file_size,
            exclude,
            ..WalkConfig::default()
        }
    }

    /// A file of a generation without its facts and edges yet (`None`: a language this build
    /// does not know).
    fn unfilled(
        &mut self,
        f: sextant_store::FileInfo,
        (set, set_hash): (i64, Option<i64>),
    ) -> Option<LiveFile> {
        let language = self.registry.get(&f.language).cloned()?;
        let lang = self.book.rule_for(&language);
        Some(LiveFile {
            ctx: resolve::FileCtx {
                id: f.id,
                node: f.node_id,
                path: f.path,
                module: f.module,
                lang,
            },
            language,
            hash: f.hash,
            uncommitted: f.uncommitted,
            set,
            set_hash,
            symbols: Vec::new(),
            refs: Vec::new(),
            imports: Vec::new(),
            bindings: Vec::new(),
            edges: Vec::new(),
            unresolved: Vec::new(),
            tally: Tally::default(),
            ref_names: Default::default(),
        })
    }

    /// Moves the files in memory to `generation`, loading only what they do not hold already:
    /// the facts of file versions not in memory and the edge sets that differ (a branch switch
    /// or a pipeline run changes a few files and a few hundred sets of thousands). The resolver
    /// is left to be built by the next update (or [`LiveIndex::prepare`]); the manifests
    /// (`cargo`, `npm_packages`) must be current.
    fn move_to(&mut self, store: &Store, generation: i64) -> Result<()> {
        let info = store.generation(generation)?;
        let infos = store.files(generation)?;
        let sets: FxHashMap<i64, (i64, Option<i64>)> = store
            .generation_set_hashes(generation)?
            .into_iter()
            .map(|(f, s, h)| (f, (s, h)))
            .collect();
        let skipped = store.skipped(generation)?;
        if let Some(state) = self.resolver.take() {
            std::thread::spawn(move || drop(state));
        }
        let mut held: FxHashMap<i64, LiveFile> = std::mem::take(&mut self.files)
            .into_values()
            .map(|f| (f.ctx.id, f))
            .collect();
        let mut by_id: FxHashMap<i64, LiveFile> = FxHashMap::default();
        let mut need_facts: Vec<i64> = Vec::new();
        let mut need_sets: Vec<(i64, i64)> = Vec::new();
        for f in infos {
            let (set, set_hash) = sets.get(&f.id).copied().unwrap_or_default();
            match held.remove(&f.id) {
                Some(mut file) => {
                    file.uncommitted = f.uncommitted;
                    if file.set != set {
                        file.edges.clear();
                        file.unresolved.clear();
                        need_sets.push((f.id, set));
                    }
                    file.set = set;
                    file.set_hash = set_hash;
                    by_id.insert(f.id, file);
                }
                None => {
                    if let Some(file) = self.unfilled(f, (set, set_hash)) {
                        need_facts.push(file.ctx.id);
                        need_sets.push((file.ctx.id, set));
                        by_id.insert(file.ctx.id, file);
                    }
                }
            }
        }
        need_facts.sort_unstable();
        fill_facts(&mut by_id, store.file_facts(&need_facts)?);
        let (edges, unresolved) = store.sets_resolution(&need_sets)?;
        fill_resolution(&mut by_id, edges, unresolved);
        let reloaded: FxHashSet<i64> = need_sets.iter().map(|(f, _)| *f).collect();
        self.files = by_id
            .into_values()
            .map(|mut f| {
                if reloaded.contains(&f.ctx.id) {
                    canonical(&mut f.edges, &mut f.unresolved);
                    f.tally = Tally::of(&f.edges, &f.unresolved);
                }
                (f.ctx.path.clone(), f)
            })
            .collect();
        std::thread::spawn(move || drop(held));
        self.skipped = skipped
            .into_iter()
            .map(|s| (s.path, (intern(&s.reason), s.size)))
            .collect();
        let paths: Vec<&str> = self.files.keys().map(String::as_str).collect();
        self.layout = Layout::new(paths.iter().copied(), &self.cargo);
        self.generation = generation;
        self.commit = info.as_ref().and_then(|g| g.commit.clone());
        self.branch = info.as_ref().and_then(|g| g.branch.clone());
        self.head_blobs = None;
        Ok(())
    }

    /// Reads the active generation into memory: only what changed when a generation is held
    /// already ([`LiveIndex::move_to`]), else all of it, and builds the resolver.
    fn reload(&mut self) -> Result<()> {
        if self.overlay.is_none() && !self.files.is_empty() {
            let store = Store::open(&self.data.db())?;
            let generation = store.active_generation_id()?;
            let walk = sextant_vfs::walk(&self.root, &self.walk_config(), |_| false);
            let (cargo, npm) = manifests(&walk);
            self.cargo = cargo;
            self.npm_packages = npm;
            return self.move_to(&store, generation);
        }
        self.reload_whole()
    }

    /// Reads the active generation (a workspace's: its own) into memory, all of it.
    fn reload_whole(&mut self) -> Result<()> {
        if let Some(state) = self.resolver.take() {
            std::thread::spawn(move || drop(state));
        }
        let store = Store::open(&self.data.db())?;
        let generation = match &self.overlay {
            Some(o) => o.generation,
            None => store.active_generation_id()?,
        };
        let info = store
            .generations()?
            .into_iter()
            .find(|g| g.id == generation);
        let infos = store.files(generation)?;
        let sets: FxHashMap<i64, (i64, Option<i64>)> = store
            .generation_set_hashes(generation)?
            .into_iter()
            .map(|(f, s, h)| (f, (s, h)))
            .collect();
        let facts = store.generation_facts(generation)?;
        let (edges, unresolved) = store.generation_resolution(generation)?;
        let skipped = store.skipped(generation)?;
        drop(store);

        let walk = sextant_vfs::walk(&self.root, &self.walk_config(), |_| false);
        let (cargo, npm) = manifests(&walk);
        self.cargo = cargo;
        self.npm_packages = npm;
        let mut by_id: FxHashMap<i64, LiveFile> = FxHashMap::default();
        for f in infos {
            let set = sets.get(&f.id).copied().unwrap_or_default();
            if let Some(file) = self.unfilled(f, set) {
                by_id.insert(file.ctx.id, file);
            }
        }
        fill_facts(&mut by_id, facts);
        fill_resolution(&mut by_id, edges, unresolved);
        self.files = by_id
            .into_values()
            .map(|mut f| {
                canonical(&mut f.edges, &mut f.unresolved);
                f.tally = Tally::of(&f.edges, &f.unresolved);
                (f.ctx.path.clone(), f)
            })
            .collect();
        self.skipped = skipped
            .into_iter()
            .map(|s| (s.path, (intern(&s.reason), s.size)))
            .collect();
        let paths: Vec<&str> = self.files.keys().map(String::as_str).collect();
        self.layout = Layout::new(paths.iter().copied(), &self.cargo);
        self.generation = generation;
        self.commit = info.as_ref().and_then(|g| g.commit.clone());
        self.branch = info.as_ref().and_then(|g| g.branch.clone());
        self.head_blobs = None;
        let built = build_resolver(
            &self.files,
            &self.book.rules,
            &self.npm_packages,
            &mut Vec::new(),
        );
        self.resolver = Some(built.state);
        Ok(())
    }

    /// Blob ids of the commit's files, read on first use after the commit changed: a file is
    /// uncommitted when it differs (a workspace's, when it differs from its base commit).
    fn head_blobs(&mut self) -> &crate::blobs::TreeBlobs {
        let (root, commit) = (&self.root, self.commit.as_deref());
        let dir = &self.data.dir;
        self.head_blobs.get_or_insert_with(|| {
            commit
                .and_then(|commit| {
                    crate::blobs::TreeBlobs::collect(dir, |each| {
                        sextant_git::each_tree_blob(root, commit, each).map(|()| true)
                    })
                })
                .unwrap_or_default()
        })
    }

    /// Does now what the next update would otherwise do first: builds the resolver when moving
    /// to another generation left it out. Call when idle (the watcher does, after reporting).
    pub fn prepare(&mut self) {
        if self.resolver.is_none() && !self.files.is_empty() {
            let built = build_resolver(
                &self.files,
                &self.book.rules,
                &self.npm_packages,
                &mut Vec::new(),
            );
            self.resolver = Some(built.state);
        }
    }

    /// HEAD moved to `commit`: when a clean published generation of that commit (its baseline,
    /// with the current resolution context) has exactly the files the tree has now (the files in
    /// memory with the `changed` paths read again) and the same skipped files, publishes a
    /// generation that is that baseline's (its file versions, edge sets and skipped files; nothing
    /// extracted or resolved) and moves the memory to it. `None` when it cannot tell (no
    /// baseline, another tree, a directory or an ignore file or manifest among the changes, a
    /// file skipped before or now): the caller runs the pipeline.
    fn try_switch(
        &mut self,
        store: &mut Store,
        changed: &[PathBuf],
        commit: Option<String>,
        branch: Option<String>,
        started: Instant,
    ) -> Result<Option<LiveUpdate>> {
        let mut phases: Vec<(String, f64)> = Vec::new();
        let mut last = Instant::now();
        let mut mark = |name: &str, phases: &mut Vec<(String, f64)>| {
            phases.push((name.to_string(), last.elapsed().as_secs_f64()));
            last = Instant::now();
        };
        let Some(commit) = commit else {
            return Ok(None);
        };
        let context =
            crate::pipeline::resolution_context(&self.cargo, &self.npm_packages, &self.versions);
        let Some(base) = store.generations()?.into_iter().find(|g| {
            g.status == "published" && !g.dirty && g.commit.as_deref() == Some(commit.as_str())
        }) else {
            return Ok(None);
        };
        let stats = base
            .stats
            .as_deref()
            .and_then(|s| serde_json::from_str::<serde_json::Value>(s).ok());
        if stats
            .as_ref()
            .and_then(|s| s.get("context"))
            .and_then(|c| c.as_str())
            != Some(context.as_str())
        {
            return Ok(None);
        }
        // The tree now: what memory holds, with the changed paths read again.
        let mut tree: FxHashMap<String, String> = self
            .files
            .iter()
            .map(|(p, f)| (p.clone(), f.hash.clone()))
            .collect();
        let mut gone: Vec<String> = Vec::new();
        let max = self.options.max_file_size;
        let (mut changed_files, mut added_files) = (0u64, 0u64);
        for p in changed {
            let rel = if p.is_absolute() {
                match p.strip_prefix(&self.root) {
                    Ok(r) => r.to_path_buf(),
                    Err(_) => continue,
                }
            } else {
                p.clone()
            };
            let Some(rel) = rel.to_str() else {
                return Ok(None);
            };
            if rel.is_empty() || rel == ".git" || rel.starts_with(".git/") {
                continue;
            }
            let name = rel.rsplit('/').next().unwrap_or(rel);
            if is_structural(name)
                || sextant_vfs::is_secret_path(rel)
                || self.skipped.contains_key(rel)
            {
                return Ok(None);
            }
            let abs = self.root.join(rel);
            match std::fs::symlink_metadata(&abs) {
                Err(_) => {
                    // Gone (a directory takes its files with it).
                    let prefix = format!("{rel}/");
                    if self
                        .skipped
                        .range(prefix.clone()..)
                        .next()
                        .is_some_and(|(p, _)| p.starts_with(&prefix))
                    {
                        return Ok(None);
                    }
                    gone.push(rel.to_string());
                }
                // A directory appeared: only a walk can tell what it holds.
                Ok(meta) if meta.is_dir() => return Ok(None),
                Ok(_) if self.registry.for_path(rel).is_none() => {}
                Ok(_) => match read_source(&abs, max, 10_000, 400) {
                    Ok(source) => {
                        if self.files.contains_key(rel) {
                            changed_files += 1;
                        } else {
                            added_files += 1;
                        }
                        tree.insert(rel.to_string(), source.hash);
                    }
                    Err(_) => return Ok(None),
                },
            }
        }
        for rel in &gone {
            let prefix = format!("{rel}/");
            tree.retain(|p, _| p != rel && !p.starts_with(&prefix));
        }
        mark("switch.detect", &mut phases);
        let files = store.files(base.id)?;
        if files.len() != tree.len()
            || files
                .iter()
                .any(|f| tree.get(f.path.as_str()) != Some(&f.hash))
        {
            return Ok(None);
        }
        let skipped = store.skipped(base.id)?;
        if skipped.len() != self.skipped.len()
            || skipped
                .iter()
                .any(|s| self.skipped.get(&s.path).map(|(r, _)| *r) != Some(s.reason.as_str()))
        {
            return Ok(None);
        }
        mark("switch.compare", &mut phases);
        // Publish the baseline's files, sets and skipped files as the new active generation.
        let mut builder = store.begin_generation(Some(&commit), branch.as_deref(), false)?;
        builder.analyze = false;
        builder.copy_files_from(base.id, &[], &[])?;
        let skipped_rows: Vec<(String, &'static str, u64)> = skipped
            .iter()
            .map(|s| (s.path.clone(), intern(&s.reason), s.size))
            .collect();
        builder.write_skipped(&skipped_rows)?;
        let generation = builder.publish(base.stats.as_deref().unwrap_or("{}"))?;
        self.uncollected += 1;
        mark("switch.publish", &mut phases);
        let self_files_before = self.files.len() as u64;
        self.move_to(store, generation)?;
        let files_after = self.files.len() as u64;
        mark("switch.load", &mut phases);
        let mut summary = self.summary(started);
        summary.generation = generation;
        summary.reused_generation = Some(base.id);
        summary.files_reused = summary.files_indexed;
        summary.phases = phases.clone();
        summary.db_bytes = store.size_bytes();
        summary.wall_seconds = started.elapsed().as_secs_f64();
        store.set_generation_stats(generation, &crate::pipeline::summary_json(&summary))?;
        Ok(Some(LiveUpdate {
            generation: Some(generation),
            files_changed: changed_files,
            files_added: added_files,
            files_deleted: (self_files_before + added_files).saturating_sub(files_after),
            wall_seconds: started.elapsed().as_secs_f64(),
            phases,
            summary: Some(summary),
            ..LiveUpdate::default()
        }))
    }

    /// Runs the full pipeline (incremental over file versions) and reloads.
    fn full(&mut self, why: &str, started: Instant) -> Result<LiveUpdate> {
        let mut options = self.options.clone();
        options.full = false;
        let summary = crate::index(&self.root, &options, &|_| {})?;
        self.reload()?;
        Ok(LiveUpdate {
            generation: Some(summary.generation),
            full: Some(why.to_string()),
            wall_seconds: started.elapsed().as_secs_f64(),
            summary: Some(summary),
            ..LiveUpdate::default()
        })
    }

    /// Brings the index up to date with `changed` paths (absolute or relative to the root; paths
    /// outside the repository are ignored) and publishes a new generation if anything changed.
    pub fn update(&mut self, changed: &[PathBuf]) -> Result<LiveUpdate> {
        let started = Instant::now();
        let mut phases: Vec<(String, f64)> = Vec::new();
        let mut last = Instant::now();
        let mut mark = |name: &str, phases: &mut Vec<(String, f64)>| {
            phases.push((name.to_string(), last.elapsed().as_secs_f64()));
            last = Instant::now();
        };
        let _lock = lock(&self.data, &|_: Progress| {})?;
        let mut store = match self.store.take() {
            Some(store) => store,
            None => Store::open(&self.data.db())?,
        };
        let workspace = self.overlay.is_some();
        if !workspace && store.active_generation_id()? != self.generation {
            self.reload()?;
        }
        let (commit, branch) = head_of_root(&self.root);
        if !workspace && (commit != self.commit || branch != self.branch) {
            // A commit indexed before, checked out again: its baseline serves when the tree
            // is known to match it.
            if let Some(update) = self.try_switch(&mut store, changed, commit, branch, started)? {
                self.store = Some(store);
                return Ok(update);
            }
            drop(store);
            drop(_lock);
            return self.full("HEAD moved", started);
        }
        // Moving to another generation left the resolver out: built over the files as they are
        // before this change, so an edit that keeps a file's shape patches it.
        self.prepare();

        // Which paths changed, and how.
        let mut relative: Vec<String> = Vec::new();
        for p in changed {
            let rel = if p.is_absolute() {
                match p.strip_prefix(&self.root) {
                    Ok(r) => r.to_path_buf(),
                    Err(_) => continue,
                }
            } else {
                p.clone()
            };
            let Some(text) = rel.to_str() else { continue };
            if text.is_empty() || text.starts_with(".git/") || text == ".git" {
                continue;
            }
            let name = text.rsplit('/').next().unwrap_or(text);
            if !workspace && is_structural(name) {
                drop(store);
                drop(_lock);
                return self.full(&format!("{text} changed"), started);
            }
            relative.push(text.to_string());
        }
        relative.sort();
        relative.dedup();
        if !workspace && relative.len() as f64 > FULL_THRESHOLD * self.files.len().max(50) as f64 {
            drop(store);
            drop(_lock);
            return self.full("many files changed", started);
        }
        let max = self.options.max_file_size;
        let mut modified: Vec<(String, sextant_vfs::SourceFile)> = Vec::new();
        let mut deleted: Vec<String> = Vec::new();
        let mut newly_skipped: Vec<(String, &'static str, u64)> = Vec::new();
        let mut unknown: Vec<String> = Vec::new();
        let mut added_by_overlay: Vec<(String, sextant_vfs::SourceFile)> = Vec::new();
        for rel in &relative {
            let abs = self.root.join(rel);
            let exists = self.exists(rel, &abs);
            if let Some(f) = self.files.get(rel) {
                if !exists {
                    deleted.push(rel.clone());
                    continue;
                }
                match self.read(rel, &abs, max) {
                    Ok(src) if src.hash == f.hash => {}
                    Ok(src) => modified.push((rel.clone(), src)),
                    Err(e) => {
                        deleted.push(rel.clone());
                        newly_skipped.push((rel.clone(), e.reason.as_str(), 0));
                    }
                }
            } else if workspace && exists && self.registry.for_path(rel).is_some() {
                // A file the workspace adds (it may exist nowhere on disk): read, not walked.
                match self.read(rel, &abs, max) {
                    Ok(src) => added_by_overlay.push((rel.clone(), src)),
                    Err(e) => newly_skipped.push((rel.clone(), e.reason.as_str(), 0)),
                }
            } else if exists && abs.is_dir() {
                // A directory appeared (created or moved in): the walk finds its files.
                unknown.push(format!("{rel}/"));
            } else if exists && self.registry.for_path(rel).is_some() {
                unknown.push(rel.clone());
            } else if !exists {
                // A deleted directory takes its files with it.
                let prefix = format!("{rel}/");
                deleted.extend(
                    self.files
                        .range(prefix.clone()..)
                        .take_while(|(p, _)| p.starts_with(&prefix))
                        .map(|(p, _)| p.clone()),
                );
                self.skipped.remove(rel);
                let gone: Vec<String> = self
                    .skipped
                    .range(prefix.clone()..)
                    .take_while(|(p, _)| p.starts_with(&prefix))
                    .map(|(p, _)| p.clone())
                    .collect();
                for p in gone {
                    self.skipped.remove(&p);
                }
            }
        }
        // New paths: the walk decides (ignore files, skip rules) exactly as a full index would.
        let mut added: Vec<(String, sextant_vfs::SourceFile)> = added_by_overlay;
        if !unknown.is_empty() {
            let registry = &self.registry;
            let walk = sextant_vfs::walk(&self.root, &self.walk_config(), |p| {
                registry.for_path(p).is_some()
            });
            let wanted = |p: &str| {
                unknown.iter().any(|u| {
                    if u.ends_with('/') {
                        p.starts_with(u.as_str())
                    } else {
                        p == u
                    }
                })
            };
            for f in walk.files.iter().filter(|f| wanted(f.path.as_str())) {
                let rel = f.path.as_str().to_string();
                if self.files.contains_key(&rel) {
                    continue;
                }
                self.skipped.remove(&rel);
                match read_source(&walk.abs(f), max, 10_000, 400) {
                    Ok(src) => added.push((rel, src)),
                    Err(e) => newly_skipped.push((rel, e.reason.as_str(), 0)),
                }
            }
            for s in walk.skipped.iter().filter(|s| wanted(s.path.as_str())) {
                newly_skipped.push((s.path.as_str().to_string(), s.reason.as_str(), s.size));
            }
        }
        mark("detect", &mut phases);
        if modified.is_empty() && added.is_empty() && deleted.is_empty() {
            if !newly_skipped.is_empty() {
                for (p, r, s) in newly_skipped {
                    self.skipped.insert(p, (r, s));
                }
            }
            self.store = Some(store);
            return Ok(LiveUpdate {
                wall_seconds: started.elapsed().as_secs_f64(),
                phases,
                ..LiveUpdate::default()
            });
        }

        // The layout follows the set of paths: a new or deleted file can rename the modules of
        // others (a Python package gaining `__init__.py`); those are re-extracted too.
        let mut update = LiveUpdate {
            files_changed: modified.len() as u64,
            files_added: added.len() as u64,
            files_deleted: deleted.len() as u64,
            ..LiveUpdate::default()
        };
        let mut to_extract: Vec<(String, sextant_vfs::SourceFile)> = modified;
        to_extract.extend(added);
        if update.files_added > 0 || update.files_deleted > 0 {
            let mut paths: Vec<&str> = self
                .files
                .keys()
                .map(String::as_str)
                .filter(|p| !deleted.iter().any(|d| d == p))
                .collect();
            paths.extend(to_extract.iter().map(|(p, _)| p.as_str()));
            paths.sort_unstable();
            let layout = Layout::new(paths.iter().copied(), &self.cargo);
            let mut renamed: Vec<String> = Vec::new();
            for (path, f) in &self.files {
                let style = f.language.manifest.module;
                if style != ModuleStyle::Declared
                    && !to_extract.iter().any(|(p, _)| p == path)
                    && !deleted.contains(path)
                    && layout.module(style, path, None) != f.ctx.module
                {
                    renamed.push(path.clone());
                }
            }
            for path in renamed {
                if let Ok(src) = self.read(&path, &self.root.join(&path), max) {
                    to_extract.push((path, src));
                }
            }
            self.layout = layout;
        }

        // Extract.
        let _ = self.head_blobs();
        let no_blobs = crate::blobs::TreeBlobs::default();
        let head_blobs = self.head_blobs.as_ref().unwrap_or(&no_blobs);
        let in_git = self.commit.is_some();
        let registry = &self.registry;
        let layout = &self.layout;
        let extracted: Vec<Extracted> = to_extract
            .into_par_iter()
            .filter_map(|(path, source)| {
                let language = registry.for_path(&path)?.clone();
                let facts = sextant_extract::extract(&language, &path, &source.text);
                let module =
                    layout.module(language.manifest.module, &path, facts.package.as_deref());
                let uncommitted = in_git && !head_blobs.has(&path, &source.hash);
                Some(Extracted {
                    path,
                    language,
                    module,
                    hash: source.hash,
                    size: source.size,
                    lossy: source.lossy,
                    uncommitted,
                    facts: Some(facts),
                    reuse: None,
                    hashed: true,
                    stat: source.stat,
                    held: None,
                })
            })
            .collect();
        // The parse arenas' spare chunks (up to 16 MiB a thread) are not kept while the
        // index waits for the next change.
        rayon::broadcast(|_| sextant_lang::release_spare_chunks());
        mark("extract", &mut phases);

        // New file versions: rows written, facts kept in memory.
        let dirty_before = self.files.values().any(|f| f.uncommitted);
        let mut builder =
            store.begin_generation(self.commit.as_deref(), self.branch.as_deref(), dirty_before)?;
        builder.analyze = false;
        let mut next = builder.first;
        let mut batch = Vec::with_capacity(extracted.len());
        let mut inputs = ResolverInputs::default();
        let mut new_files: Vec<(String, Arc<Language>, String, bool)> = Vec::new();
        for item in extracted {
            let lang = self.book.rule_for(&item.language);
            let extractor = self
                .versions
                .get(item.language.id())
                .cloned()
                .unwrap_or_default();
            new_files.push((
                item.path.clone(),
                item.language.clone(),
                item.hash.clone(),
                item.uncommitted,
            ));
            batch.push(file_rows(item, &extractor, &mut next, lang, &mut inputs));
        }
        builder.write_files(&batch)?;
        absorb_rows(&mut batch, &mut inputs);
        mark("write_files", &mut phases);

        // Old versions out (remembering what they defined), new ones in.
        let mut old_nodes: FxHashSet<i64> = FxHashSet::default();
        let mut names: FxHashSet<String> = FxHashSet::default();
        let mut old_classes: Vec<i64> = Vec::new();
        let mut replaced: Vec<String> = deleted.clone();
        replaced.extend(new_files.iter().map(|(p, ..)| p.clone()));
        let mut olds: FxHashMap<String, LiveFile> = FxHashMap::default();
        for path in &replaced {
            if let Some(old) = self.files.remove(path) {
                old_nodes.insert(old.ctx.node);
                for s in &old.symbols {
                    old_nodes.insert(s.id);
                    names.insert(s.name.clone());
                    if s.kind.is_type_like() {
                        old_classes.push(s.id);
                    }
                }
                olds.insert(path.clone(), old);
            }
        }
        let mut by_file: FxHashMap<i64, LiveFile> = FxHashMap::default();
        for ((path, language, hash, uncommitted), ctx) in new_files.into_iter().zip(inputs.files) {
            debug_assert_eq!(path, ctx.path);
            by_file.insert(
                ctx.id,
                LiveFile {
                    ctx,
                    language,
                    hash,
                    uncommitted,
                    set: 0,
                    set_hash: None,
                    symbols: Vec::new(),
                    refs: Vec::new(),
                    imports: Vec::new(),
                    bindings: Vec::new(),
                    edges: Vec::new(),
                    unresolved: Vec::new(),
                    tally: Tally::default(),
                    ref_names: Default::default(),
                },
            );
        }
        for s in inputs.symbols.iter() {
            names.insert(s.name.to_string());
            if let Some(f) = by_file.get_mut(&s.file) {
                f.symbols.push(s.to_symbol());
            }
        }
        for r in inputs.refs {
            if let Some(f) = by_file.get_mut(&r.file) {
                f.refs.push(r);
            }
        }
        for i in inputs.imports {
            if let Some(f) = by_file.get_mut(&i.file) {
                f.imports.push(i);
            }
        }
        for b in inputs.bindings.iter() {
            if let Some(f) = by_file.get_mut(&b.file) {
                f.bindings.push(b.to_bind());
            }
        }
        let fresh: FxHashSet<i64> = by_file.keys().copied().collect();
        for (_, f) in by_file {
            self.files.insert(f.ctx.path.clone(), f);
        }
        for (p, r, s) in newly_skipped {
            self.skipped.insert(p, (r, s));
        }
        mark("apply", &mut phases);

        // The resolver: patched when every changed file kept its shape, else rebuilt.
        let patched = match self.resolver.take() {
            Some(state) if update.files_added == 0 && update.files_deleted == 0 => {
                patch_resolver(state, &olds, &self.files, &fresh)
            }
            Some(state) => {
                std::thread::spawn(move || drop(state));
                None
            }
            None => None,
        };
        let mut rebuild_phases: Vec<(String, f64)> = Vec::new();
        let Built {
            state,
            mut global,
            new_inherits,
            patched,
            names_matter,
            pointing,
            renamed,
            changed_names,
        } = match patched {
            Some(built) => built,
            None => build_resolver(
                &self.files,
                &self.book.rules,
                &self.npm_packages,
                &mut rebuild_phases,
            ),
        };
        update.resolver_patched = patched;
        // The whole step, then (after a rebuild) its parts.
        mark("resolver", &mut phases);
        phases.extend(rebuild_phases);
        let inherit_ids = &state.inherit_ids;
        let resolver = &state.resolver;
        let names = changed_names.unwrap_or(names);

        // The files this change can affect.
        let name_hashes: Vec<u64> = names.iter().map(|n| name_hash(n)).collect();
        let mut affected: FxHashSet<i64> = fresh.clone();
        if let Some(pointing) = pointing {
            // A patch: the tables are the same but for ids, so what can change is what pointed
            // into the changed files, what an attribute binding types, and subclasses (through
            // the resolver's hierarchy, already renamed).
            affected.extend(pointing);
            if names_matter && !names.is_empty() {
                for f in self.files.values() {
                    if !affected.contains(&f.ctx.id) && f.refers_to_any(&name_hashes) {
                        affected.insert(f.ctx.id);
                    }
                }
            }
            let mut roots: Vec<i64> = self
                .files
                .values()
                .filter(|f| fresh.contains(&f.ctx.id))
                .flat_map(|f| {
                    f.symbols
                        .iter()
                        .filter(|s| s.kind.is_type_like())
                        .map(|s| s.id)
                })
                .collect();
            let mut seen: FxHashSet<i64> = roots.iter().copied().collect();
            while let Some(c) = roots.pop() {
                for &d in resolver.derived_types(c) {
                    if seen.insert(d) {
                        if let Some(f) = resolver.file_of(d) {
                            affected.insert(f);
                        }
                        roots.push(d);
                    }
                }
            }
        }
        let mut old_inherits: Vec<(i64, i64)> = Vec::new();
        for f in self.files.values().filter(|_| !patched) {
            if affected.contains(&f.ctx.id) {
                continue;
            }
            let mut hit = f.edges.iter().any(|e| old_nodes.contains(&e.dst));
            if !hit && names_matter && !names.is_empty() {
                hit = f.refers_to_any(&name_hashes);
            }
            if !hit && !patched {
                // Import edges that came out different (after a patch, only those pointing
                // into the changed files, found above).
                let mut old_imports: Vec<&resolve::Edge> =
                    f.edges.iter().filter(|e| e.import_id.is_some()).collect();
                let empty = Vec::new();
                let new = global.get(&f.ctx.id).map(|g| &g.0).unwrap_or(&empty);
                let mut new_imports: Vec<&resolve::Edge> =
                    new.iter().filter(|e| e.import_id.is_some()).collect();
                old_imports.sort_by(|a, b| edge_key(a).cmp(&edge_key(b)));
                new_imports.sort_by(|a, b| edge_key(a).cmp(&edge_key(b)));
                hit = old_imports != new_imports;
            }
            if hit {
                affected.insert(f.ctx.id);
            }
            for e in &f.edges {
                if matches!(e.kind, EdgeKind::Inherits | EdgeKind::Implements) {
                    old_inherits.push((e.src, e.dst));
                }
            }
        }
        // Subclasses (transitively, before and after) of the changed files' classes.
        let mut roots: Vec<i64> = if patched { Vec::new() } else { old_classes };
        for f in self
            .files
            .values()
            .filter(|f| !patched && fresh.contains(&f.ctx.id))
        {
            roots.extend(
                f.symbols
                    .iter()
                    .filter(|s| s.kind.is_type_like())
                    .map(|s| s.id),
            );
        }
        let mut derived: FxHashMap<i64, Vec<i64>> = FxHashMap::default();
        for (src, dst) in old_inherits.iter().chain(&new_inherits) {
            derived.entry(*dst).or_default().push(*src);
        }
        let mut seen: FxHashSet<i64> = roots.iter().copied().collect();
        while let Some(c) = roots.pop() {
            for &d in derived.get(&c).into_iter().flatten() {
                if seen.insert(d) {
                    if let Some(f) = resolver.file_of(d) {
                        affected.insert(f);
                    }
                    roots.push(d);
                }
            }
        }
        mark("affected", &mut phases);

        // Re-resolve the affected files' references; the others keep theirs.
        let affected_files: Vec<&LiveFile> = self
            .files
            .values()
            .filter(|f| affected.contains(&f.ctx.id))
            .collect();
        let resolver_ref = resolver;
        let resolved: Vec<(i64, Vec<resolve::Edge>, Vec<resolve::Unresolved>)> = affected_files
            .par_iter()
            .map(|f| {
                let resolver = resolver_ref;
                let mut out = resolve::Output {
                    edges: Vec::new(),
                    unresolved: Vec::new(),
                };
                for r in f.refs.iter().filter(|r| !inherit_ids.contains(&r.id)) {
                    resolve::push(&mut out, crate::pipeline::resolve_guarded(resolver, r));
                }
                (f.ctx.id, out.edges, out.unresolved)
            })
            .collect();
        update.files_resolved = resolved.len() as u64;
        update.references_resolved = affected_files.iter().map(|f| f.refs.len() as u64).sum();
        let mut resolved: FxHashMap<i64, (Vec<resolve::Edge>, Vec<resolve::Unresolved>)> =
            resolved.into_iter().map(|(f, e, u)| (f, (e, u))).collect();
        mark("resolve", &mut phases);

        // New edge lists; a file keeps its set when its list did not change.
        let mut keep: Vec<GenFile> = Vec::new();
        let mut hashes: Vec<(i64, i64)> = Vec::new();
        let mut edge_rows: Vec<EdgeRow> = Vec::new();
        let mut unresolved_rows: Vec<UnresolvedRow> = Vec::new();
        for f in self.files.values_mut() {
            let id = f.ctx.id;
            let derived = global.remove(&id);
            let resolution = resolved.remove(&id);
            if patched && derived.is_none() && resolution.is_none() && !fresh.contains(&id) {
                // Nothing of this file changed.
                keep.push(GenFile {
                    file: id,
                    uncommitted: f.uncommitted,
                    set: Some(f.set),
                    hash: f.set_hash,
                });
                continue;
            }
            let (mut edges, mut unresolved) = match derived {
                Some(d) => d,
                // After a patch, a file missing from `global` keeps its derived edges.
                None if patched => (
                    f.edges
                        .iter()
                        .filter(|e| {
                            e.import_id.is_some()
                                || e.ref_id.is_none_or(|r| inherit_ids.contains(&r))
                        })
                        .cloned()
                        .collect(),
                    f.unresolved
                        .iter()
                        .filter(|u| inherit_ids.contains(&u.ref_id))
                        .cloned()
                        .collect(),
                ),
                None => Default::default(),
            };
            match resolution {
                Some((e, u)) => {
                    edges.extend(e);
                    unresolved.extend(u);
                }
                None => {
                    // Reference edges (not inheritance) carry over, into the changed files'
                    // definitions under their new ids.
                    edges.extend(
                        f.edges
                            .iter()
                            .filter(|e| e.ref_id.is_some_and(|r| !inherit_ids.contains(&r)))
                            .map(|e| {
                                let mut e = e.clone();
                                if let Some(&n) = renamed.get(&e.dst) {
                                    e.dst = n;
                                }
                                e
                            }),
                    );
                    unresolved.extend(
                        f.unresolved
                            .iter()
                            .filter(|u| !inherit_ids.contains(&u.ref_id))
                            .cloned(),
                    );
                }
            }
            canonical(&mut edges, &mut unresolved);
            let same = !fresh.contains(&id) && edges == f.edges && unresolved == f.unresolved;
            if same {
                keep.push(GenFile {
                    file: id,
                    uncommitted: f.uncommitted,
                    set: Some(f.set),
                    hash: f.set_hash,
                });
                continue;
            }
            if !fresh.contains(&id) {
                keep.push(GenFile {
                    file: id,
                    uncommitted: f.uncommitted,
                    set: None,
                    hash: None,
                });
            }
            let mut edge_keys: Vec<EdgeKey> = edges
                .iter()
                .map(|e| {
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
                })
                .collect();
            let mut unresolved_keys: Vec<UnresolvedKey> = unresolved
                .iter()
                .map(|u| (u.ref_id, u.reason, u.candidates))
                .collect();
            let hash = set_hash(&mut edge_keys, &mut unresolved_keys);
            f.set_hash = Some(hash);
            hashes.push((id, hash));
            for e in &edges {
                edge_rows.push(EdgeRow {
                    file_id: id,
                    src: e.src,
                    dst: e.dst,
                    kind: e.kind,
                    provenance: e.provenance,
                    confidence: e.confidence,
                    rule: e.rule,
                    ref_id: e.ref_id,
                    import_id: e.import_id,
                });
            }
            for u in &unresolved {
                unresolved_rows.push(UnresolvedRow {
                    file_id: id,
                    ref_id: u.ref_id,
                    reason: u.reason,
                    candidates: u.candidates,
                });
            }
            update.sets_written += 1;
            f.tally = Tally::of(&edges, &unresolved);
            f.edges = edges;
            f.unresolved = unresolved;
        }
        mark("write.prepare", &mut phases);
        // The kept files' rows are the previous generation's: copied in one statement, but for
        // the replaced versions and the files getting a new set.
        let mut except: Vec<i64> = olds.values().map(|f| f.ctx.id).collect();
        let mut shared: Vec<(i64, i64)> = Vec::with_capacity(keep.len());
        let mut rest: Vec<GenFile> = Vec::new();
        for g in keep {
            match g.set {
                Some(set) => shared.push((g.file, set)),
                None => {
                    except.push(g.file);
                    rest.push(g);
                }
            }
        }
        builder.copy_files_from(self.generation, &except, &shared)?;
        builder.add_files(&rest)?;
        mark("write.files", &mut phases);
        let record: Vec<(i64, i64, Option<i64>)> = hashes
            .iter()
            .filter_map(|&(file, hash)| Some((file, builder.edge_set(file)?, Some(hash))))
            .collect();
        builder.record_sets(&record)?;
        builder.write_resolution(&edge_rows, &unresolved_rows)?;
        mark("write.sets", &mut phases);
        let skipped: Vec<(String, &'static str, u64)> = self
            .skipped
            .iter()
            .map(|(p, (r, s))| (p.clone(), *r, *s))
            .collect();
        builder.write_skipped(&skipped)?;
        mark("write.skipped", &mut phases);

        let mut summary = self.summary(started);
        mark("summary", &mut phases);
        let sets: FxHashMap<i64, i64> = self
            .files
            .values()
            .filter_map(|f| Some((f.ctx.id, builder.edge_set(f.ctx.id)?)))
            .collect();
        let generation = if workspace {
            builder.publish_detached(&crate::pipeline::summary_json(&summary))?
        } else {
            builder.publish(&crate::pipeline::summary_json(&summary))?
        };
        for f in self.files.values_mut() {
            f.set = sets.get(&f.ctx.id).copied().unwrap_or_default();
        }
        if self.files.values().any(|f| f.uncommitted) {
            store.mark_dirty(generation)?;
        }
        match self.overlay.as_mut().map(|o| o.on_publish.take()) {
            Some(Some(recorded)) => recorded(&mut store, generation)?,
            Some(None) => {}
            // Collecting the generations this one replaces is housekeeping, not part of making
            // the change visible: [`LiveIndex::collect_garbage`] does it when the caller is
            // idle, and at the latest every GC_EVERY publishes here.
            None => {
                self.uncollected += 1;
                if self.uncollected >= GC_EVERY {
                    store.collect_garbage(2)?;
                    self.uncollected = 0;
                }
            }
        }
        self.generation = generation;
        mark("publish", &mut phases);
        update.generation = Some(generation);
        update.wall_seconds = started.elapsed().as_secs_f64();
        summary.generation = generation;
        summary.wall_seconds = update.wall_seconds;
        summary.files_reused = summary
            .files_indexed
            .saturating_sub(update.files_changed + update.files_added);
        summary.phases = phases.clone();
        summary.db_bytes = store.size_bytes();
        self.store = Some(store);
        update.summary = Some(summary);
        update.phases = phases;
        self.resolver = Some(state);
        // Freeing the replaced versions' facts happens off the caller's path.
        std::thread::spawn(move || drop(olds));
        update.wall_seconds = started.elapsed().as_secs_f64();
        Ok(update)
    }

    /// The stored summary of the generation being published.
    fn summary(&self, started: Instant) -> IndexSummary {
        let mut by_kind: FxHashMap<(EdgeKind, Provenance), u64> = FxHashMap::default();
        let mut by_reason: FxHashMap<&'static str, u64> = FxHashMap::default();
        let mut languages: FxHashMap<String, u64> = FxHashMap::default();
        let mut skipped: FxHashMap<String, u64> = FxHashMap::default();
        let mut s = IndexSummary {
            root: self.root.clone(),
            db_path: self.data.db(),
            commit: self.commit.clone(),
            branch: self.branch.clone(),
            context: crate::pipeline::resolution_context(
                &self.cargo,
                &self.npm_packages,
                &self.versions,
            ),
            ..IndexSummary::default()
        };
        for f in self.files.values() {
            s.files_indexed += 1;
            s.files_uncommitted += u64::from(f.uncommitted);
            s.symbols += f.symbols.len() as u64;
            s.references += f.refs.len() as u64;
            s.imports += f.imports.len() as u64;
            *languages.entry(f.language.id().to_string()).or_default() += 1;
            for (key, n) in &f.tally.edges {
                *by_kind.entry(*key).or_default() += n;
            }
            for (reason, n) in &f.tally.unresolved {
                *by_reason.entry(*reason).or_default() += n;
            }
        }
        let mut edges: FxHashMap<String, u64> = by_kind
            .into_iter()
            .map(|((k, p), n)| (format!("{}/{}", k.as_str(), p.as_str()), n))
            .collect();
        let unresolved: FxHashMap<String, u64> = by_reason
            .into_iter()
            .map(|(r, n)| (r.to_string(), n))
            .collect();
        edges.insert("contains/asserted".into(), s.symbols);
        for (reason, _) in self.skipped.values() {
            *skipped.entry(reason.to_string()).or_default() += 1;
        }
        let sorted = |m: FxHashMap<String, u64>| {
            let mut v: Vec<(String, u64)> = m.into_iter().collect();
            v.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
            v
        };
        s.edges = sorted(edges);
        s.unresolved = sorted(unresolved);
        s.languages = sorted(languages);
        s.skipped = sorted(skipped);
        s.dirty = s.files_uncommitted > 0;
        s.wall_seconds = started.elapsed().as_secs_f64();
        s
    }
}
