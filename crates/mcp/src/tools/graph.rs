//! Graph tools: `hierarchy`, `impact`, `path`, `overview`.

use std::collections::HashMap;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::{Json, tool, tool_router};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sextant_engine::{self as engine, ImpactDirection, Repo, Symbol};

use super::*;
use crate::budget::{Cursor, Limits, fingerprint, fit, json_len};
use crate::dto::*;
use crate::server::{SextantServer, check_kinds, engine_err, page_meta};

fn default_path_depth() -> u32 {
    8
}
fn default_overview_top() -> u32 {
    10
}

/// `hierarchy` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HierarchyArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    #[schemars(description = SYMBOL_DOC)]
    pub symbol: String,
    /// Levels up and down. Default 3, at most 6.
    #[serde(default = "default_depth")]
    pub depth: u32,
    /// Answer budget in tokens. Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

/// One type or method of a hierarchy.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HierarchyStepOut {
    /// 1 = direct.
    pub depth: u32,
    /// Qualified name of the symbol this one was reached from.
    pub from: String,
    #[serde(flatten)]
    pub neighbor: NeighborOut,
}

/// `hierarchy`: bases, derived types, overridden and overriding methods.
#[derive(Debug, Serialize, JsonSchema)]
pub struct HierarchyData {
    pub symbol: SymbolOut,
    pub depth: u32,
    /// Types the symbol (or a method's owner) derives from or implements, transitively.
    pub bases: Vec<HierarchyStepOut>,
    /// Types deriving from or implementing it, transitively.
    pub derived: Vec<HierarchyStepOut>,
    /// Methods this method overrides.
    pub overrides: Vec<HierarchyStepOut>,
    /// Methods overriding this method.
    pub overridden_by: Vec<HierarchyStepOut>,
    /// Base names written in the source that resolve to nothing in the repository (external
    /// libraries, the standard library).
    pub unresolved_bases: Vec<UnresolvedOut>,
}

/// Which way `impact` walks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ImpactWay {
    /// Who depends on the symbols: what may break when they change.
    #[default]
    Upstream,
    /// What the symbols depend on.
    Downstream,
    Both,
}

/// `impact` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ImpactArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// The symbol to analyse (same syntax as the other tools). Give this, `symbols`, or both.
    #[serde(default)]
    pub symbol: String,
    /// More symbols changed together. Default [].
    #[serde(default)]
    pub symbols: Vec<String>,
    /// `upstream` (who depends on them: what breaks), `downstream` (what they depend on) or
    /// `both`. Default `upstream`.
    #[serde(default)]
    pub direction: ImpactWay,
    /// How many edges away to go. Default 3, at most 6.
    #[serde(default = "default_depth")]
    pub depth: u32,
    /// At most this many symbols per level (the rest are counted as truncated, not followed).
    /// Default 20, at most 100.
    #[serde(default = "default_calls_limit")]
    pub limit: u32,
    /// `next_cursor` of the previous page of `affected`. Default "": the first page.
    #[serde(default)]
    pub cursor: String,
    /// Answer budget in tokens. Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

/// One affected symbol.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ImpactOut {
    /// Edges away from the changed symbols: 1 = direct.
    pub depth: u32,
    /// `will_break` (depth 1), `likely_affected` (2), `may_need_testing` (3+).
    pub risk: String,
    /// `upstream` or `downstream`.
    pub direction: String,
    /// `test`, `public_api`, `entry_point`.
    pub labels: Vec<String>,
    /// Qualified name of the symbol it was reached from.
    pub from: String,
    #[serde(flatten)]
    pub neighbor: NeighborOut,
}

/// Counts per distance.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DepthCount {
    pub depth: u32,
    pub risk: String,
    pub count: u64,
}

/// The whole impact in numbers (never cut).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ImpactSummary {
    pub affected: u64,
    pub by_depth: Vec<DepthCount>,
    /// By label: `test`, `public_api`, `entry_point`.
    pub by_label: Vec<KindCount>,
    /// Files with the most affected symbols (at most 20).
    pub files: Vec<KindCount>,
    /// Test files holding affected tests: the tests to run.
    pub test_files: Vec<String>,
    /// Some level held more than `limit` symbols; the rest were not followed.
    pub level_limit_reached: bool,
}

/// `impact` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct ImpactData {
    pub roots: Vec<SymbolOut>,
    pub direction: String,
    pub depth: u32,
    pub summary: ImpactSummary,
    /// Affected tests (at most 50): run these after the change.
    pub tests: Vec<SymbolOut>,
    /// Affected symbols, nearest first (paged).
    pub affected: Vec<ImpactOut>,
}

/// `path` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PathArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// Where the path starts (same syntax as `symbol` elsewhere).
    pub from: String,
    /// Where it ends.
    pub to: String,
    /// Longest path searched, in hops. Default 8, at most 20.
    #[serde(default = "default_path_depth")]
    pub max_depth: u32,
    /// Only these edge kinds (calls, instantiates, uses_type, inherits, implements, imports,
    /// reads, writes, ...). Default: all but `contains`.
    #[serde(default)]
    pub kind: Vec<String>,
}

/// One hop: `from` depends on `neighbor.symbol` through `neighbor.edge`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct HopOut {
    /// Qualified name of the symbol the hop leaves.
    pub from: String,
    #[serde(flatten)]
    pub neighbor: NeighborOut,
}

/// `path` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct PathData {
    pub from: SymbolOut,
    pub to: SymbolOut,
    pub found: bool,
    /// `from` → ... → `to`; `contains` enters a member of `from`, `member_of` leaves a member of
    /// `to` for `to`.
    pub hops: Vec<HopOut>,
    /// Path lengths fully searched.
    pub searched_depth: u32,
    /// Symbols visited.
    pub visited: u64,
    /// Everything reachable was visited: no path exists at any length.
    pub exhausted: bool,
    /// Edge kinds followed.
    pub kinds: Vec<String>,
}

/// `overview` arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OverviewArgs {
    /// The repository: its root path, or its id from `status`. Default "": the repository this
    /// server was started for.
    #[serde(default)]
    pub repo: String,
    /// Entries per list (areas, entry points, central symbols, largest files). Default 10, at
    /// most 50.
    #[serde(default = "default_overview_top")]
    pub top: u32,
    /// Answer budget in tokens. Default 8000, at most 32000.
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
}

/// A language's share.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct LanguageOut {
    pub language: String,
    pub files: u64,
    pub bytes: u64,
    pub symbols: u64,
}

/// A directory or package.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct AreaOut {
    pub path: String,
    pub files: u64,
    pub bytes: u64,
    pub symbols: u64,
    /// Files by language, most first.
    pub languages: Vec<KindCount>,
}

/// Where execution starts.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EntryOut {
    /// `main`, `script`, `package_main`.
    pub kind: String,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<SymbolOut>,
}

/// A symbol many others depend on.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CentralOut {
    pub symbol: SymbolOut,
    /// Incoming calls, references, instantiations and type uses.
    pub incoming: u64,
    /// Distinct symbols they come from.
    pub sources: u64,
}

/// A file by size.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FileOut {
    pub path: String,
    pub language: String,
    pub bytes: u64,
    pub lines: u32,
    pub symbols: u64,
}

/// `overview` answer.
#[derive(Debug, Serialize, JsonSchema)]
pub struct OverviewData {
    pub root: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub branch: Option<String>,
    /// Unix time the index was published.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub indexed_at: Option<i64>,
    pub uncommitted_files: u64,
    pub files: u64,
    pub bytes: u64,
    pub symbols: u64,
    pub edges: u64,
    pub languages: Vec<LanguageOut>,
    /// Top-level directories or packages, largest first.
    pub areas: Vec<AreaOut>,
    pub areas_total: u64,
    pub entry_points: Vec<EntryOut>,
    pub entry_points_total: u64,
    /// Most depended-on symbols (by incoming edges).
    pub central: Vec<CentralOut>,
    pub largest_files: Vec<FileOut>,
}

fn names_of(
    repo: &Repo,
    ids: impl Iterator<Item = i64>,
    known: &[&Symbol],
) -> HashMap<i64, String> {
    let mut out: HashMap<i64, String> = known
        .iter()
        .map(|s| (s.id, s.qualified_name.clone()))
        .collect();
    for id in ids {
        if let std::collections::hash_map::Entry::Vacant(e) = out.entry(id)
            && let Ok(Some(s)) = repo.symbol_by_id(id)
        {
            e.insert(s.qualified_name);
        }
    }
    out
}

fn steps(
    entries: &[engine::HierarchyEntry],
    names: &HashMap<i64, String>,
) -> Vec<HierarchyStepOut> {
    entries
        .iter()
        .map(|e| HierarchyStepOut {
            depth: e.depth,
            from: names.get(&e.from).cloned().unwrap_or_default(),
            neighbor: NeighborOut::from(&e.neighbor),
        })
        .collect()
}

fn unresolved_out(u: &engine::UnresolvedSite) -> UnresolvedOut {
    UnresolvedOut::from(u)
}

fn risk_of(depth: u32) -> &'static str {
    match depth {
        0 | 1 => "will_break",
        2 => "likely_affected",
        _ => "may_need_testing",
    }
}

/// The impact answer for `roots` (shared with `changes`).
pub(crate) fn impact_data(
    repo: &Repo,
    impact: &engine::Impact,
    offset: usize,
    page: usize,
) -> (ImpactData, usize) {
    let ids = impact
        .affected
        .iter()
        .map(|e| e.from)
        .collect::<Vec<_>>()
        .into_iter();
    let roots: Vec<&Symbol> = impact.roots.iter().collect();
    let names = names_of(repo, ids, &roots);
    let affected: Vec<ImpactOut> = impact
        .affected
        .iter()
        .skip(offset)
        .take(page)
        .map(|e| ImpactOut {
            depth: e.depth,
            risk: e.risk().to_string(),
            direction: e.direction.as_str().to_string(),
            labels: e.labels.iter().map(|l| l.to_string()).collect(),
            from: names
                .get(&e.from)
                .cloned()
                .unwrap_or_else(|| e.from_name.clone()),
            neighbor: NeighborOut::from(&e.neighbor),
        })
        .collect();
    let data = ImpactData {
        roots: impact.roots.iter().map(SymbolOut::compact).collect(),
        direction: impact.direction.as_str().to_string(),
        depth: impact.depth,
        summary: ImpactSummary {
            affected: impact.affected.len() as u64,
            by_depth: impact
                .by_depth
                .iter()
                .map(|(d, n)| DepthCount {
                    depth: *d,
                    risk: risk_of(*d).to_string(),
                    count: *n,
                })
                .collect(),
            by_label: kind_counts(&impact.by_label),
            files: kind_counts(&impact.files.iter().take(20).cloned().collect::<Vec<_>>()),
            test_files: impact.test_files.clone(),
            level_limit_reached: impact.truncated,
        },
        tests: impact
            .tests
            .iter()
            .take(50)
            .map(SymbolOut::compact)
            .collect(),
        affected,
    };
    (data, impact.affected.len())
}

/// Resolves `symbol` and `symbols` together (at least one).
pub(crate) fn resolve_all(repo: &Repo, one: &str, more: &[String]) -> Result<Vec<Symbol>, String> {
    let mut names: Vec<&str> = Vec::new();
    if !one.trim().is_empty() {
        names.push(one.trim());
    }
    names.extend(more.iter().map(|s| s.trim()).filter(|s| !s.is_empty()));
    if names.is_empty() {
        return Err("give `symbol` (or `symbols`): the symbols to analyse".into());
    }
    if names.len() > 50 {
        return Err(format!(
            "argument `symbols`: at most 50 symbols at once ({} given)",
            names.len()
        ));
    }
    let mut out: Vec<Symbol> = Vec::new();
    for name in names {
        let s = repo.resolve_symbol(name).map_err(engine_err)?;
        if !out.iter().any(|o| o.id == s.id) {
            out.push(s);
        }
    }
    Ok(out)
}

#[tool_router(router = graph_tools, vis = "pub(crate)")]
impl SextantServer {
    #[tool(
        description = "Type hierarchy of a class, interface, trait or struct (bases and derived types, transitively), or the override chain of a method (what it overrides, what overrides it). Use it instead of grepping for `extends`/`implements`/`impl Trait for`.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn hierarchy(
        &self,
        Parameters(a): Parameters<HierarchyArgs>,
    ) -> Result<Json<Envelope<HierarchyData>>, String> {
        self.blocking(&a.repo.clone(), move |b| {
            b.answer(|repo, meta| {
                let mut limits = Limits::default();
                let depth = limits.clamp("depth", a.depth, 3, 1, 6);
                let budget = limits.budget_bytes(a.max_tokens);
                let s = repo.resolve_symbol(&a.symbol).map_err(engine_err)?;
                let h = repo.hierarchy(&s, depth).map_err(engine_err)?;
                let all = h
                    .bases
                    .iter()
                    .chain(&h.derived)
                    .chain(&h.overrides)
                    .chain(&h.overridden_by)
                    .map(|e| e.from)
                    .collect::<Vec<_>>();
                let names = names_of(repo, all.into_iter(), &[&h.root]);
                let mut data = HierarchyData {
                    symbol: SymbolOut::compact(&h.root),
                    depth: h.depth,
                    bases: steps(&h.bases, &names),
                    derived: Vec::new(),
                    overrides: steps(&h.overrides, &names),
                    overridden_by: Vec::new(),
                    unresolved_bases: h.unresolved_bases.iter().map(unresolved_out).collect(),
                };
                let mut derived = steps(&h.derived, &names);
                let mut overridden_by = steps(&h.overridden_by, &names);
                let total = derived.len() + overridden_by.len();
                let cut_a = fit(&mut derived, json_len(&data) + 512, budget);
                let used = json_len(&data) + json_len(&derived) + 512;
                let cut_b = fit(&mut overridden_by, used, budget);
                data.derived = derived;
                data.overridden_by = overridden_by;
                if cut_a || cut_b || h.truncated {
                    meta.truncated = true;
                    meta.hint = Some(format!(
                        "{} of {total} derived types / overriding methods shown: lower `depth`, raise `max_tokens`, or ask `hierarchy` about a derived type",
                        data.derived.len() + data.overridden_by.len()
                    ));
                }
                meta.completeness = Some(CompletenessOut::from(&h.completeness));
                meta.limits_applied = limits.applied;
                Ok(data)
            })
        })
        .await
    }

    #[tool(
        description = "What may break if symbols change: everything that depends on them (`upstream`: callers, subclasses, type users, importers...) or that they depend on (`downstream`), grouped by distance with risk labels (tests, public API, entry points) and the tests to run. Use it before editing a function or type.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn impact(
        &self,
        Parameters(a): Parameters<ImpactArgs>,
    ) -> Result<Json<Envelope<ImpactData>>, String> {
        self.blocking(&a.repo.clone(), move |b| {
            b.answer(|repo, meta| {
                let mut limits = Limits::default();
                let depth = limits.clamp("depth", a.depth, 3, 1, 6);
                let per_level = limits.clamp("limit", a.limit, 20, 1, 100);
                let budget = limits.budget_bytes(a.max_tokens);
                let roots = resolve_all(repo, &a.symbol, &a.symbols)?;
                let direction = match a.direction {
                    ImpactWay::Upstream => ImpactDirection::Upstream,
                    ImpactWay::Downstream => ImpactDirection::Downstream,
                    ImpactWay::Both => ImpactDirection::Both,
                };
                let ids: Vec<&str> = roots.iter().map(|r| r.stable_id.as_str()).collect();
                let fp = fingerprint(&[
                    "impact",
                    &ids.join(","),
                    direction.as_str(),
                    &depth.to_string(),
                    &per_level.to_string(),
                ]);
                let offset = Cursor::decode(&a.cursor, meta.generation, fp)?;
                let impact = repo
                    .impact(&roots, direction, depth, per_level)
                    .map_err(engine_err)?;
                let (mut data, total) = impact_data(repo, &impact, offset, usize::MAX);
                let mut affected = std::mem::take(&mut data.affected);
                let cut = fit(&mut affected, json_len(&data) + 512, budget);
                let shown = affected.len();
                data.affected = affected;
                page_meta(meta, "impact", fp, offset, shown, offset + shown < total, cut);
                if impact.truncated {
                    meta.truncated = true;
                    let note = format!(
                        "some level had more than {per_level} symbols and the rest were not followed: raise `limit` (at most 100)"
                    );
                    meta.hint = Some(match meta.hint.take() {
                        Some(h) => format!("{h}; {note}"),
                        None => note,
                    });
                }
                meta.completeness = Some(CompletenessOut::from(&impact.completeness));
                meta.limit = Some(per_level);
                meta.limits_applied = limits.applied;
                Ok(data)
            })
        })
        .await
    }

    #[tool(
        description = "The shortest dependency path from one symbol to another (calls, type uses, inheritance, imports...), each hop with its edge kind and site. Use it to learn how two parts of the code are connected.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn path(
        &self,
        Parameters(a): Parameters<PathArgs>,
    ) -> Result<Json<Envelope<PathData>>, String> {
        self.blocking(&a.repo.clone(), move |b| {
            b.answer(|repo, meta| {
                let mut limits = Limits::default();
                let max_depth = limits.clamp("max_depth", a.max_depth, 8, 1, 20);
                let kinds = check_kinds("kind", &a.kind, true)?;
                let from = repo.resolve_symbol(&a.from).map_err(|e| format!("argument `from`: {}", engine_err(e)))?;
                let to = repo.resolve_symbol(&a.to).map_err(|e| format!("argument `to`: {}", engine_err(e)))?;
                let search = repo
                    .path_search(&from, &to, max_depth, &kinds)
                    .map_err(engine_err)?;
                let hops = match &search.path {
                    Some(p) => {
                        let names =
                            names_of(repo, p.hops.iter().map(|h| h.from), &[&from, &to]);
                        p.hops
                            .iter()
                            .map(|h| HopOut {
                                from: names.get(&h.from).cloned().unwrap_or_default(),
                                neighbor: NeighborOut::from(&h.neighbor),
                            })
                            .collect()
                    }
                    None => Vec::new(),
                };
                if search.path.is_none() {
                    meta.hint = Some(if search.exhausted {
                        "no path at any length along these edge kinds (try `direction` reversed: swap `from` and `to`)".to_string()
                    } else {
                        format!(
                            "no path within {} hops (searched {} symbols): raise `max_depth`, or swap `from` and `to`",
                            search.searched_depth, search.visited
                        )
                    });
                }
                meta.limits_applied = limits.applied;
                Ok(PathData {
                    from: SymbolOut::compact(&from),
                    to: SymbolOut::compact(&to),
                    found: search.path.is_some(),
                    hops,
                    searched_depth: search.searched_depth,
                    visited: search.visited,
                    exhausted: search.exhausted,
                    kinds: search.kinds.clone(),
                })
            })
        })
        .await
    }

    #[tool(
        description = "The repository at a glance: languages, size, top-level areas, entry points, the most depended-on symbols, the largest files, and how fresh the index is. Call it first in an unfamiliar repository instead of listing directories.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn overview(
        &self,
        Parameters(a): Parameters<OverviewArgs>,
    ) -> Result<Json<Envelope<OverviewData>>, String> {
        self.blocking(&a.repo.clone(), move |b| {
            b.answer(|repo, meta| {
                let mut limits = Limits::default();
                let mut top = limits.clamp("top", a.top, 10, 1, 50) as usize;
                let budget = limits.budget_bytes(a.max_tokens);
                let o = repo.overview(top).map_err(engine_err)?;
                let build = |top: usize| OverviewData {
                    root: o.root.display().to_string(),
                    branch: o.branch.clone(),
                    indexed_at: o.indexed_at,
                    uncommitted_files: o.uncommitted_files,
                    files: o.files,
                    bytes: o.bytes,
                    symbols: o.symbols,
                    edges: o.edges,
                    languages: o
                        .languages
                        .iter()
                        .map(|l| LanguageOut {
                            language: l.language.clone(),
                            files: l.files,
                            bytes: l.bytes,
                            symbols: l.symbols,
                        })
                        .collect(),
                    areas: o
                        .areas
                        .iter()
                        .take(top)
                        .map(|x| AreaOut {
                            path: x.path.clone(),
                            files: x.files,
                            bytes: x.bytes,
                            symbols: x.symbols,
                            languages: kind_counts(&x.languages),
                        })
                        .collect(),
                    entry_points: o
                        .entry_points
                        .iter()
                        .take(top)
                        .map(|e| EntryOut {
                            kind: e.kind.to_string(),
                            path: e.path.clone(),
                            symbol: e.symbol.as_ref().map(SymbolOut::compact),
                        })
                        .collect(),
                    areas_total: o.areas_total,
                    entry_points_total: o.entry_points_total,
                    central: o
                        .central
                        .iter()
                        .take(top)
                        .map(|c| CentralOut {
                            symbol: SymbolOut::compact(&c.symbol),
                            incoming: c.incoming,
                            sources: c.sources,
                        })
                        .collect(),
                    largest_files: o
                        .largest_files
                        .iter()
                        .take(top)
                        .map(|f| FileOut {
                            path: f.path.clone(),
                            language: f.language.clone(),
                            bytes: f.bytes,
                            lines: f.lines,
                            symbols: f.symbols,
                        })
                        .collect(),
                };
                let mut data = build(top);
                while json_len(&data) > budget && top > 1 {
                    top /= 2;
                    data = build(top);
                    meta.truncated = true;
                    meta.hint = Some(format!(
                        "lists cut to {top} entries to fit max_tokens: raise max_tokens for more"
                    ));
                }
                meta.limits_applied = limits.applied;
                Ok(data)
            })
        })
        .await
    }
}
