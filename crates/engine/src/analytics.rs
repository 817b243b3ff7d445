//! Graph analytics over the in-memory graph of the active generation (issue 6): central symbols
//! (PageRank), bridges (betweenness), communities (Louvain), dependency cycles (SCC at file,
//! module and function level), complexity, the architecture (layers, coupling, hotspots), the
//! graph schema and Cypher queries. Entry points, flows and dead code live in `analytics/live.rs`.
//!
//! The graph of a (database, generation) is loaded once and shared process-wide
//! ([`Repo::graph`]). The costly per-generation results (PageRank scores, betweenness,
//! community membership) are computed on first use and kept in `derived.db` beside the index,
//! so later calls and later processes reuse them; every such result says whether it came from
//! there (`cached`) and how long it took (`compute_ms`).

mod live;
mod render;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Serialize;
use sextant_graph::algo::{self, EdgeFilter};
use sextant_graph::{EdgeInput, EdgeKind, Graph, Ix, NodeData, NodeKind};

use crate::graph::is_test_path;
use crate::query::Repo;
use crate::{Error, Result};

pub use live::{
    DeadCode, DeadCodeConfig, DeadItem, EntryPointItem, EntryPoints, FlowStep, FlowSummary, Flows,
    RepoConfig, load_repo_config,
};
pub use render::{QueryError, QueryOutput, QueryTruncation, SchemaEntry, SchemaReport};

/// A node as every analytics answer names it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeRef {
    /// The stable id (`sym_…`).
    pub id: String,
    pub kind: &'static str,
    pub name: String,
    pub qualified_name: String,
    pub path: String,
    pub line: u32,
}

/// A node with a score.
#[derive(Debug, Clone, Serialize)]
pub struct RankedNode {
    pub rank: usize,
    pub node: NodeRef,
    pub score: f64,
    /// Incoming dependency edges (call sites etc. counted).
    pub incoming: u64,
    /// Outgoing dependency edges.
    pub outgoing: u64,
}

/// The most central symbols by PageRank.
#[derive(Debug, Clone, Serialize)]
pub struct Central {
    pub generation: i64,
    pub edge_kinds: Vec<&'static str>,
    /// Nodes the ranking ran over (everything but files and documents).
    pub nodes_ranked: usize,
    pub iterations: u32,
    pub converged: bool,
    /// The scores came from `derived.db` (computed earlier for this generation).
    pub cached: bool,
    /// Time to compute (or load) the scores, milliseconds.
    pub compute_ms: f64,
    /// Test code left out of the list (it is ranked, but rarely what one looks for).
    pub tests_excluded: bool,
    pub results: Vec<RankedNode>,
}

/// The symbols most shortest dependency paths pass through (betweenness).
#[derive(Debug, Clone, Serialize)]
pub struct Bridges {
    pub generation: i64,
    pub nodes: usize,
    /// Breadth-first sources run; fewer than `nodes` means the scores are a sample estimate.
    pub sources: usize,
    pub exact: bool,
    pub cached: bool,
    pub compute_ms: f64,
    pub results: Vec<RankedNode>,
}

/// Edges from one community to another.
#[derive(Debug, Clone, Serialize)]
pub struct CommunityLink {
    pub community: u32,
    pub label: String,
    /// Dependency edges between the two (both directions, call sites counted).
    pub edges: u64,
}

/// One community of densely connected symbols.
#[derive(Debug, Clone, Serialize)]
pub struct Community {
    /// 0 is the largest.
    pub id: u32,
    pub size: usize,
    /// The deepest directory holding more than half of the members (product code when the
    /// community has any), or the dominant directory `(+N directories)`.
    pub label: String,
    /// Share of those members under the label's directory.
    pub label_share: f64,
    pub files: usize,
    /// Most central members (PageRank).
    pub top_members: Vec<RankedNode>,
    /// Dependency edges with other communities, most first.
    pub links: Vec<CommunityLink>,
    /// Dependency edges inside the community.
    pub internal_edges: u64,
}

/// Communities (Louvain over dependency edges).
#[derive(Debug, Clone, Serialize)]
pub struct CommunityReport {
    pub generation: i64,
    /// Every community, singletons included.
    pub count: usize,
    /// Communities with at least `min_size` members.
    pub eligible: usize,
    pub min_size: usize,
    pub modularity: f64,
    pub levels: u32,
    pub cached: bool,
    pub compute_ms: f64,
    pub communities: Vec<Community>,
}

/// An edge inside a cycle.
#[derive(Debug, Clone, Serialize)]
pub struct CycleEdge {
    pub from: String,
    pub to: String,
    /// Dependency edges it stands for.
    pub count: u64,
}

/// One dependency cycle (a strongly connected component).
#[derive(Debug, Clone, Serialize)]
pub struct Cycle {
    pub size: usize,
    /// Paths (file level), directories (module level) or qualified names (function level).
    pub members: Vec<String>,
    /// The functions (function level only).
    pub nodes: Vec<NodeRef>,
    /// Edges between members (at most 30).
    pub edges: Vec<CycleEdge>,
}

/// Dependency cycles at one level.
#[derive(Debug, Clone, Serialize)]
pub struct Cycles {
    pub generation: i64,
    /// `file`, `module` (directories) or `function` (calls only).
    pub level: &'static str,
    pub edge_kinds: Vec<&'static str>,
    /// Cycles found (components of two or more members).
    pub count: usize,
    /// Members of all cycles together.
    pub members_in_cycles: usize,
    /// Function level: functions calling themselves directly (not listed as cycles).
    pub self_recursive: usize,
    pub cycles: Vec<Cycle>,
}

/// A function by complexity.
#[derive(Debug, Clone, Serialize)]
pub struct ComplexFunction {
    pub node: NodeRef,
    pub complexity: u32,
    pub lines: u32,
}

/// Complexity summed over a file or a target.
#[derive(Debug, Clone, Serialize)]
pub struct ComplexityTotal {
    pub path: String,
    pub functions: u64,
    pub total: u64,
    pub max: u32,
    pub mean: f64,
}

/// Cyclomatic complexity: most complex functions, totals per file and per target.
#[derive(Debug, Clone, Serialize)]
pub struct ComplexityReport {
    pub generation: i64,
    pub path_prefix: Option<String>,
    pub functions: u64,
    pub total: u64,
    pub mean: f64,
    pub most_complex: Vec<ComplexFunction>,
    pub files: Vec<ComplexityTotal>,
    /// Per target: the top-level directory, or two levels under `crates/`, `packages/`, ...
    pub targets: Vec<ComplexityTotal>,
}

/// Modules at one level of the dependency layering.
#[derive(Debug, Clone, Serialize)]
pub struct Layer {
    /// 0: depends on no other module; n: depends on modules of levels below n.
    pub level: u32,
    pub size: usize,
    /// At most 50.
    pub modules: Vec<String>,
}

/// A module's coupling with other modules.
#[derive(Debug, Clone, Serialize)]
pub struct Coupling {
    pub module: String,
    /// Modules depending on this one.
    pub fan_in: u64,
    /// Modules this one depends on.
    pub fan_out: u64,
    pub edges_in: u64,
    pub edges_out: u64,
}

/// A large, complex, central function.
#[derive(Debug, Clone, Serialize)]
pub struct Hotspot {
    pub node: NodeRef,
    pub lines: u32,
    pub complexity: u32,
    /// PageRank relative to the average node (1.0 = average).
    pub centrality: f64,
    /// lines × complexity × centrality.
    pub score: f64,
}

/// The architecture: layers of the module (directory) dependency graph, coupling, hotspots.
#[derive(Debug, Clone, Serialize)]
pub struct Architecture {
    pub generation: i64,
    /// Directories holding product code (test directories left out).
    pub modules: usize,
    pub module_edges: usize,
    /// Bottom-up: level 0 depends on nothing else. Modules in a cycle share a level.
    pub layers: Vec<Layer>,
    /// Module cycles (each one level of the layering).
    pub cycles: Vec<Vec<String>>,
    /// Most coupled modules (fan-in + fan-out), most first.
    pub coupled: Vec<Coupling>,
    pub hotspots: Vec<Hotspot>,
    pub cached: bool,
    pub compute_ms: f64,
}

// ---- the graph, loaded once per (database, generation) ----

/// A loaded graph and what goes with it.
#[derive(Debug)]
pub(crate) struct Loaded {
    pub graph: Arc<Graph>,
    /// Stable id per [`Ix`].
    pub stable_ids: Vec<String>,
    /// Tells this generation apart from a same-numbered one of a re-created database.
    pub stamp: String,
}

type Slot = Arc<Mutex<Option<Arc<Loaded>>>>;

/// Graphs by (database path, generation), most recently used last.
static GRAPHS: Mutex<Vec<((PathBuf, i64), Slot)>> = Mutex::new(Vec::new());

/// How many graphs stay in memory (the active generation and the one before it, or two
/// repositories).
const GRAPH_CACHE_ENTRIES: usize = 2;

fn slot(key: (PathBuf, i64)) -> Slot {
    let mut list = GRAPHS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(pos) = list.iter().position(|(k, _)| *k == key) {
        let entry = list.remove(pos);
        let slot = entry.1.clone();
        list.push(entry);
        return slot;
    }
    let slot: Slot = Arc::new(Mutex::new(None));
    list.push((key, slot.clone()));
    while list.len() > GRAPH_CACHE_ENTRIES {
        list.remove(0);
    }
    slot
}

/// Which nodes take part in PageRank, betweenness and communities: code, not files or documents.
fn is_code(n: &NodeData) -> bool {
    !matches!(
        n.kind,
        NodeKind::File | NodeKind::Document | NodeKind::DocSection
    )
}

/// Kinds that group definitions (not listed as central unless asked for).
fn is_grouping(kind: NodeKind) -> bool {
    matches!(
        kind,
        NodeKind::File
            | NodeKind::Document
            | NodeKind::DocSection
            | NodeKind::Module
            | NodeKind::Package
            | NodeKind::Namespace
            | NodeKind::Directory
            | NodeKind::Repository
    )
}

/// The directory of a repository path (`.` at the root).
pub(crate) fn dir_of(path: &str) -> &str {
    match path.rsplit_once('/') {
        Some((d, _)) => d,
        None => ".",
    }
}

/// The build target a path belongs to: its top-level directory, or two levels under a
/// directory that conventionally holds several (`crates/x`, `packages/x`, ...).
fn target_of(path: &str) -> String {
    let parts: Vec<&str> = path.split('/').collect();
    if parts.len() <= 1 {
        return ".".into();
    }
    let holders = [
        "crates",
        "packages",
        "libs",
        "apps",
        "services",
        "cmd",
        "modules",
        "plugins",
        "pkg",
        "internal",
        "components",
        "projects",
    ];
    if parts.len() > 2 && holders.contains(&parts[0]) {
        return format!("{}/{}", parts[0], parts[1]);
    }
    parts[0].to_string()
}

fn ms(since: Instant) -> f64 {
    (since.elapsed().as_secs_f64() * 1e6).round() / 1e3
}

// ---- derived.db encoding: a JSON header, then little-endian f64s and u32s ----

const MAGIC: &[u8; 4] = b"SXD1";

fn encode(header: &serde_json::Value, floats: &[f64], ints: &[u32]) -> Vec<u8> {
    let head = serde_json::to_vec(header).unwrap_or_default();
    let mut out = Vec::with_capacity(16 + head.len() + floats.len() * 8 + ints.len() * 4);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(head.len() as u32).to_le_bytes());
    out.extend_from_slice(&head);
    out.extend_from_slice(&(floats.len() as u32).to_le_bytes());
    for f in floats {
        out.extend_from_slice(&f.to_le_bytes());
    }
    out.extend_from_slice(&(ints.len() as u32).to_le_bytes());
    for i in ints {
        out.extend_from_slice(&i.to_le_bytes());
    }
    out
}

type Decoded = (serde_json::Value, Vec<f64>, Vec<u32>);

fn decode(bytes: &[u8]) -> Option<Decoded> {
    let mut at = 0usize;
    let mut take = |n: usize| -> Option<&[u8]> {
        let s = bytes.get(at..at.checked_add(n)?)?;
        at += n;
        Some(s)
    };
    if take(4)? != MAGIC {
        return None;
    }
    let u32_of = |b: &[u8]| u32::from_le_bytes(b.try_into().unwrap_or([0; 4])) as usize;
    let head_len = u32_of(take(4)?);
    let header: serde_json::Value = serde_json::from_slice(take(head_len)?).ok()?;
    let nf = u32_of(take(4)?);
    let floats = take(nf.checked_mul(8)?)?
        .chunks_exact(8)
        .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
        .collect();
    let ni = u32_of(take(4)?);
    let ints = take(ni.checked_mul(4)?)?
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap_or([0; 4])))
        .collect();
    Some((header, floats, ints))
}

/// PageRank scores per [`Ix`] with how they were obtained.
#[derive(Debug, Clone)]
pub(crate) struct Scores {
    pub scores: Vec<f64>,
    pub header: serde_json::Value,
    pub cached: bool,
    pub compute_ms: f64,
}

/// Community membership per [`Ix`].
#[derive(Debug, Clone)]
struct Membership {
    membership: Vec<u32>,
    count: usize,
    modularity: f64,
    levels: u32,
    cached: bool,
    compute_ms: f64,
}

impl Repo {
    /// The graph of the active generation, loaded on first use and shared by every `Repo` of
    /// this process opened on the same database and generation.
    pub fn graph(&self) -> Result<Arc<Graph>> {
        Ok(self.loaded()?.graph.clone())
    }

    pub(crate) fn loaded(&self) -> Result<Arc<Loaded>> {
        let slot = slot((self.data.db(), self.generation()));
        let mut guard = slot.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(l) = guard.as_ref() {
            return Ok(l.clone());
        }
        let start = Instant::now();
        let generation = self.generation();
        let rows = self.store().graph_rows(generation)?;
        let started_at = self.store().generation_started_at(generation)?.unwrap_or(0);
        let mut stable_ids = Vec::with_capacity(rows.nodes.len());
        let nodes: Vec<NodeData> = rows
            .nodes
            .into_iter()
            .map(|n| {
                stable_ids.push(n.stable_id);
                NodeData {
                    id: n.id,
                    kind: n.kind,
                    name: n.name,
                    qname: n.qname,
                    path: n.path,
                    language: n.language,
                    start_line: n.start_line,
                    end_line: n.end_line,
                    visibility: n.visibility,
                    modifiers: n.modifiers,
                    complexity: n.complexity,
                    parent_id: n.parent_id,
                    signature: n.signature,
                }
            })
            .collect();
        let edges: Vec<EdgeInput> = rows
            .edges
            .iter()
            .map(|e| EdgeInput {
                src: e.src,
                dst: e.dst,
                kind: e.kind,
                provenance: e.provenance,
            })
            .collect();
        drop(rows.edges);
        let graph = Graph::new(nodes, &edges);
        tracing::debug!(
            nodes = graph.len(),
            edges = graph.edge_count(),
            ms = ms(start),
            "graph loaded"
        );
        let loaded = Arc::new(Loaded {
            graph: Arc::new(graph),
            stable_ids,
            stamp: format!("{generation}@{started_at}"),
        });
        *guard = Some(loaded.clone());
        Ok(loaded)
    }

    /// A stored derived result, or `compute` run and stored. Failing to open or write
    /// `derived.db` only costs the caching.
    fn derived_or(
        &self,
        loaded: &Loaded,
        name: &str,
        params: &str,
        compute: impl FnOnce() -> Vec<u8>,
    ) -> (Vec<u8>, bool, f64) {
        let start = Instant::now();
        let params = format!("{};{params}", loaded.stamp);
        let store = match sextant_store::DerivedStore::open(&self.data.derived()) {
            Ok(s) => Some(s),
            Err(e) => {
                tracing::warn!("derived results are not cached: {e}");
                None
            }
        };
        if let Some(s) = &store {
            match s.get(self.generation(), name, &params) {
                Ok(Some(bytes)) => return (bytes, true, ms(start)),
                Ok(None) => {}
                Err(e) => tracing::warn!("reading {name} from derived.db: {e}"),
            }
        }
        let bytes = compute();
        if let Some(s) = &store
            && let Err(e) = s.put(
                self.generation(),
                name,
                &params,
                &bytes,
                &[self.generation()],
            )
        {
            tracing::warn!("storing {name} in derived.db: {e}");
        }
        (bytes, false, ms(start))
    }

    /// A derived result decoded, recomputed when the stored bytes do not fit this graph.
    fn derived_decoded(
        &self,
        loaded: &Loaded,
        name: &str,
        params: &str,
        compute: impl Fn() -> Vec<u8>,
        fits: impl Fn(&Decoded) -> bool,
    ) -> (Decoded, bool, f64) {
        let (bytes, cached, took) = self.derived_or(loaded, name, params, &compute);
        if let Some(d) = decode(&bytes).filter(&fits) {
            return (d, cached, took);
        }
        let start = Instant::now();
        let bytes = compute();
        let d = decode(&bytes).unwrap_or((serde_json::Value::Null, Vec::new(), Vec::new()));
        (d, false, ms(start))
    }

    /// PageRank over dependency edges, nodes other than files and documents.
    pub(crate) fn pagerank_scores(&self, loaded: &Loaded) -> Scores {
        let g = &*loaded.graph;
        let n = g.len();
        let compute = || {
            let opts = algo::PageRankOptions::default();
            let pr = algo::pagerank(
                g,
                &EdgeFilter::dependencies(),
                &|ix| is_code(g.node(ix)),
                &opts,
            );
            encode(
                &serde_json::json!({"iterations": pr.iterations, "converged": pr.converged}),
                &pr.scores,
                &[],
            )
        };
        let ((header, scores, _), cached, compute_ms) =
            self.derived_decoded(loaded, "pagerank", "v1;deps;d0.85", compute, |d| {
                d.1.len() == n
            });
        Scores {
            scores,
            header,
            cached,
            compute_ms,
        }
    }

    fn betweenness_scores(&self, loaded: &Loaded) -> Scores {
        let g = &*loaded.graph;
        let n = g.len();
        let compute = || {
            let b = algo::betweenness(
                g,
                &EdgeFilter::dependencies(),
                &|ix| is_code(g.node(ix)),
                &algo::BetweennessOptions::default(),
            );
            encode(
                &serde_json::json!({"sources": b.sources, "exact": b.exact}),
                &b.scores,
                &[],
            )
        };
        let ((header, scores, _), cached, compute_ms) =
            self.derived_decoded(loaded, "betweenness", "v1;deps;s512", compute, |d| {
                d.1.len() == n
            });
        Scores {
            scores,
            header,
            cached,
            compute_ms,
        }
    }

    fn membership(&self, loaded: &Loaded) -> Membership {
        let g = &*loaded.graph;
        let n = g.len();
        let compute = || {
            let c = algo::communities(
                g,
                &EdgeFilter::dependencies(),
                &|ix| is_code(g.node(ix)),
                &algo::CommunityOptions::default(),
            );
            encode(
                &serde_json::json!({
                    "count": c.count, "modularity": c.modularity, "levels": c.levels
                }),
                &[],
                &c.membership,
            )
        };
        let ((header, _, membership), cached, compute_ms) =
            self.derived_decoded(loaded, "communities", "v1;deps;r1", compute, |d| {
                d.2.len() == n
            });
        Membership {
            membership,
            count: header["count"].as_u64().unwrap_or(0) as usize,
            modularity: header["modularity"].as_f64().unwrap_or(0.0),
            levels: header["levels"].as_u64().unwrap_or(0) as u32,
            cached,
            compute_ms,
        }
    }

    /// The most central symbols: PageRank over dependency edges (`calls`, `references`,
    /// `reads`, `writes`, `instantiates`, `uses_type`, `inherits`, `implements`, `overrides`,
    /// `imports`), files and documents left out of the ranking; only `kinds` listed (default:
    /// every kind but files, documents, modules, packages and namespaces); test code not listed.
    pub fn central(&self, kinds: &[String], limit: usize) -> Result<Central> {
        let kinds = parse_kinds(kinds)?;
        let loaded = self.loaded()?;
        let g = &*loaded.graph;
        let pr = self.pagerank_scores(&loaded);
        let listed = |n: &NodeData| {
            if kinds.is_empty() {
                !is_grouping(n.kind)
            } else {
                kinds.contains(&n.kind)
            }
        };
        let results = top_ranked(&loaded, &pr.scores, limit.clamp(1, 1000), &|ix| {
            let n = g.node(ix);
            listed(n) && !is_test_path(&n.path)
        });
        Ok(Central {
            generation: self.generation(),
            edge_kinds: dependency_kind_names(),
            nodes_ranked: (0..g.len() as Ix).filter(|&ix| is_code(g.node(ix))).count(),
            iterations: pr.header["iterations"].as_u64().unwrap_or(0) as u32,
            converged: pr.header["converged"].as_bool().unwrap_or(false),
            cached: pr.cached,
            compute_ms: pr.compute_ms,
            tests_excluded: true,
            results,
        })
    }

    /// Bridges: symbols on many shortest dependency paths (betweenness; sampled from 512
    /// sources on larger graphs, `exact` says which). Test code is not listed.
    pub fn bridges(&self, limit: usize) -> Result<Bridges> {
        let loaded = self.loaded()?;
        let g = &*loaded.graph;
        let b = self.betweenness_scores(&loaded);
        let results = top_ranked(&loaded, &b.scores, limit.clamp(1, 1000), &|ix| {
            let n = g.node(ix);
            !is_grouping(n.kind) && !is_test_path(&n.path)
        });
        Ok(Bridges {
            generation: self.generation(),
            nodes: (0..g.len() as Ix).filter(|&ix| is_code(g.node(ix))).count(),
            sources: b.header["sources"].as_u64().unwrap_or(0) as usize,
            exact: b.header["exact"].as_bool().unwrap_or(false),
            cached: b.cached,
            compute_ms: b.compute_ms,
            results,
        })
    }

    /// Communities of densely connected symbols (Louvain over dependency edges, undirected),
    /// those with at least `min_size` members, largest first, each with a label, its most
    /// central members and its links to other communities.
    pub fn communities(&self, min_size: usize, limit: usize) -> Result<CommunityReport> {
        let loaded = self.loaded()?;
        let g = &*loaded.graph;
        let m = self.membership(&loaded);
        let pr = self.pagerank_scores(&loaded);
        let count = m.count;
        let mut members: Vec<Vec<Ix>> = vec![Vec::new(); count];
        for (ix, &c) in m.membership.iter().enumerate() {
            if (c as usize) < count {
                members[c as usize].push(ix as Ix);
            }
        }
        let labels: Vec<(String, f64)> = members.iter().map(|ms| label_of(g, ms)).collect();
        // Edges between and inside communities.
        let deps = EdgeFilter::dependencies();
        let mut links: Vec<HashMap<u32, u64>> = vec![HashMap::new(); count];
        let mut internal = vec![0u64; count];
        for ix in 0..g.len() as Ix {
            let a = m.membership[ix as usize];
            if a as usize >= count {
                continue;
            }
            for e in g.out_edges(ix) {
                if !deps.allows(e.kind) || e.other == ix {
                    continue;
                }
                let b = m.membership[e.other as usize];
                if b as usize >= count {
                    continue;
                }
                let w = u64::from(e.count);
                if a == b {
                    internal[a as usize] += w;
                } else {
                    *links[a as usize].entry(b).or_default() += w;
                    *links[b as usize].entry(a).or_default() += w;
                }
            }
        }
        let min_size = min_size.max(1);
        let eligible: Vec<usize> = (0..count)
            .filter(|&c| members[c].len() >= min_size)
            .collect();
        let mut communities = Vec::new();
        for &c in eligible.iter().take(limit.clamp(1, 1000)) {
            let ms = &members[c];
            let in_c: HashSet<Ix> = ms.iter().copied().collect();
            let top_members = top_ranked(&loaded, &pr.scores, 5, &|ix| {
                in_c.contains(&ix) && !is_grouping(g.node(ix).kind)
            });
            let mut l: Vec<CommunityLink> = links[c]
                .iter()
                .map(|(&other, &edges)| CommunityLink {
                    community: other,
                    label: labels[other as usize].0.clone(),
                    edges,
                })
                .collect();
            l.sort_by(|a, b| b.edges.cmp(&a.edges).then(a.community.cmp(&b.community)));
            l.truncate(5);
            let files: HashSet<&str> = ms.iter().map(|&ix| g.node(ix).path.as_str()).collect();
            communities.push(Community {
                id: c as u32,
                size: ms.len(),
                label: labels[c].0.clone(),
                label_share: labels[c].1,
                files: files.len(),
                top_members,
                links: l,
                internal_edges: internal[c],
            });
        }
        Ok(CommunityReport {
            generation: self.generation(),
            count,
            eligible: eligible.len(),
            min_size,
            modularity: m.modularity,
            levels: m.levels,
            cached: m.cached && pr.cached,
            compute_ms: m.compute_ms + pr.compute_ms,
            communities,
        })
    }

    /// Dependency cycles: between files (`file`), directories (`module`), or functions calling
    /// each other (`function`); largest first.
    pub fn cycles(&self, level: &str, limit: usize) -> Result<Cycles> {
        let loaded = self.loaded()?;
        let g = &*loaded.graph;
        let limit = limit.clamp(1, 1000);
        let deps = EdgeFilter::dependencies();
        let mut out = Cycles {
            generation: self.generation(),
            level: "file",
            edge_kinds: dependency_kind_names(),
            count: 0,
            members_in_cycles: 0,
            self_recursive: 0,
            cycles: Vec::new(),
        };
        match level {
            "file" | "module" => {
                let module = level == "module";
                let (names, group) = groups(g, module);
                let lifted = algo::lift(g, &deps, &|_| true, &|ix| Some(group[ix as usize]));
                let sccs = algo::strongly_connected_lifted(&lifted);
                out.level = if module { "module" } else { "file" };
                out.count = sccs.len();
                out.members_in_cycles = sccs.iter().map(Vec::len).sum();
                for scc in sccs.iter().take(limit) {
                    let set: HashSet<u32> = scc.iter().copied().collect();
                    let mut edges = Vec::new();
                    for &a in scc {
                        for &(b, w) in lifted.out.get(a as usize).into_iter().flatten() {
                            if set.contains(&b) {
                                edges.push(CycleEdge {
                                    from: names[a as usize].clone(),
                                    to: names[b as usize].clone(),
                                    count: w,
                                });
                            }
                        }
                    }
                    edges.sort_by(|a, b| b.count.cmp(&a.count).then(a.from.cmp(&b.from)));
                    edges.truncate(30);
                    let mut members: Vec<String> =
                        scc.iter().map(|&a| names[a as usize].clone()).collect();
                    members.sort();
                    out.cycles.push(Cycle {
                        size: scc.len(),
                        members,
                        nodes: Vec::new(),
                        edges,
                    });
                }
            }
            "function" => {
                out.level = "function";
                out.edge_kinds = vec!["calls"];
                let calls = EdgeFilter::new(&[EdgeKind::Calls]);
                let sccs = algo::strongly_connected(g, &calls, &|ix| g.node(ix).kind.is_callable());
                out.self_recursive = sccs.iter().filter(|c| c.len() == 1).count();
                let sccs: Vec<&Vec<Ix>> = sccs.iter().filter(|c| c.len() > 1).collect();
                out.count = sccs.len();
                out.members_in_cycles = sccs.iter().map(|c| c.len()).sum();
                for scc in sccs.into_iter().take(limit) {
                    let set: HashSet<Ix> = scc.iter().copied().collect();
                    let mut edges = Vec::new();
                    for &a in scc {
                        for e in g.out_of_kind(a, EdgeKind::Calls) {
                            if set.contains(&e.other) && e.other != a {
                                edges.push(CycleEdge {
                                    from: g.node(a).qname.clone(),
                                    to: g.node(e.other).qname.clone(),
                                    count: u64::from(e.count),
                                });
                            }
                        }
                    }
                    edges.truncate(30);
                    out.cycles.push(Cycle {
                        size: scc.len(),
                        members: scc.iter().map(|&ix| g.node(ix).qname.clone()).collect(),
                        nodes: scc.iter().map(|&ix| node_ref(&loaded, ix)).collect(),
                        edges,
                    });
                }
            }
            other => {
                return Err(Error::InvalidArgument(format!(
                    "unknown cycle level {other:?}: use file, module or function"
                )));
            }
        }
        Ok(out)
    }

    /// Cyclomatic complexity of callables (optionally under a path prefix): the `limit` most
    /// complex, and totals per file and per target, most complex first.
    pub fn complexity(&self, limit: usize, path_prefix: Option<&str>) -> Result<ComplexityReport> {
        let loaded = self.loaded()?;
        let g = &*loaded.graph;
        let limit = limit.clamp(1, 1000);
        let prefix = path_prefix
            .map(|p| p.trim_start_matches("./").trim_end_matches('/'))
            .filter(|p| !p.is_empty() && *p != ".");
        let under = |path: &str| match prefix {
            None => true,
            Some(p) => path == p || path.strip_prefix(p).is_some_and(|r| r.starts_with('/')),
        };
        let mut fns: Vec<(Ix, u32)> = Vec::new();
        let mut files: BTreeMap<&str, (u64, u64, u32)> = BTreeMap::new();
        let mut targets: BTreeMap<String, (u64, u64, u32)> = BTreeMap::new();
        for ix in 0..g.len() as Ix {
            let n = g.node(ix);
            let Some(c) = n.complexity else { continue };
            if !n.kind.is_callable() || !under(&n.path) {
                continue;
            }
            if n.modifiers.split(',').any(|m| m == "declaration") {
                continue;
            }
            fns.push((ix, c));
            for t in [
                files.entry(n.path.as_str()).or_default(),
                targets.entry(target_of(&n.path)).or_default(),
            ] {
                t.0 += 1;
                t.1 += u64::from(c);
                t.2 = t.2.max(c);
            }
        }
        let total: u64 = fns.iter().map(|(_, c)| u64::from(*c)).sum();
        let functions = fns.len() as u64;
        fns.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let most_complex = fns
            .iter()
            .take(limit)
            .map(|&(ix, c)| {
                let n = g.node(ix);
                ComplexFunction {
                    node: node_ref(&loaded, ix),
                    complexity: c,
                    lines: n.end_line.saturating_sub(n.start_line) + 1,
                }
            })
            .collect();
        let totals = |m: Vec<(String, (u64, u64, u32))>| -> Vec<ComplexityTotal> {
            let mut v: Vec<ComplexityTotal> = m
                .into_iter()
                .map(|(path, (functions, total, max))| ComplexityTotal {
                    path,
                    functions,
                    total,
                    max,
                    mean: round2(total as f64 / functions.max(1) as f64),
                })
                .collect();
            v.sort_by(|a, b| b.total.cmp(&a.total).then(a.path.cmp(&b.path)));
            v.truncate(limit);
            v
        };
        Ok(ComplexityReport {
            generation: self.generation(),
            path_prefix: prefix.map(str::to_string),
            functions,
            total,
            mean: round2(total as f64 / functions.max(1) as f64),
            most_complex,
            files: totals(files.into_iter().map(|(p, t)| (p.to_string(), t)).collect()),
            targets: totals(targets.into_iter().collect()),
        })
    }

    /// The architecture: layers of the module (directory) dependency graph, bottom-up
    /// (cycles condensed: their modules share a level), module cycles, the most coupled
    /// modules, and hotspots (large × complex × central functions). Test code left out.
    pub fn architecture(&self, limit: usize) -> Result<Architecture> {
        let loaded = self.loaded()?;
        let g = &*loaded.graph;
        let limit = limit.clamp(1, 1000);
        let pr = self.pagerank_scores(&loaded);
        let product = |ix: Ix| !is_test_path(&g.node(ix).path);
        let (names, group) = groups(g, true);
        let lifted = algo::lift(g, &EdgeFilter::dependencies(), &product, &|ix| {
            Some(group[ix as usize])
        });
        // Modules: directories holding product code.
        let mut used = vec![false; names.len()];
        for ix in 0..g.len() as Ix {
            if product(ix) {
                used[group[ix as usize] as usize] = true;
            }
        }
        let modules: Vec<u32> = (0..names.len() as u32)
            .filter(|&m| used[m as usize])
            .collect();
        let sccs = algo::strongly_connected_lifted(&lifted);
        // Component per module (singletons for modules outside any cycle).
        let mut comp: Vec<u32> = vec![u32::MAX; names.len()];
        for (i, scc) in sccs.iter().enumerate() {
            for &m in scc {
                comp[m as usize] = i as u32;
            }
        }
        let mut next = sccs.len() as u32;
        for &m in &modules {
            if comp[m as usize] == u32::MAX {
                comp[m as usize] = next;
                next += 1;
            }
        }
        let comps = next as usize;
        // Condensed DAG: component → components it depends on.
        let mut deps_of: Vec<HashSet<u32>> = vec![HashSet::new(); comps];
        for &m in &modules {
            for &(t, _) in lifted.out.get(m as usize).into_iter().flatten() {
                let (a, b) = (comp[m as usize], comp[t as usize]);
                if b != u32::MAX && a != b {
                    deps_of[a as usize].insert(b);
                }
            }
        }
        let level = dag_levels(&deps_of);
        let mut by_level: BTreeMap<u32, Vec<String>> = BTreeMap::new();
        for &m in &modules {
            by_level
                .entry(level[comp[m as usize] as usize])
                .or_default()
                .push(names[m as usize].clone());
        }
        let layers = by_level
            .into_iter()
            .map(|(level, mut modules)| {
                modules.sort();
                let size = modules.len();
                modules.truncate(50);
                Layer {
                    level,
                    size,
                    modules,
                }
            })
            .collect();
        let cycles = sccs
            .iter()
            .take(limit)
            .map(|scc| {
                let mut v: Vec<String> = scc.iter().map(|&m| names[m as usize].clone()).collect();
                v.sort();
                v
            })
            .collect();
        // Coupling.
        let mut fan_in = vec![0u64; names.len()];
        let mut edges_in = vec![0u64; names.len()];
        for &m in &modules {
            for &(t, w) in lifted.out.get(m as usize).into_iter().flatten() {
                fan_in[t as usize] += 1;
                edges_in[t as usize] += w;
            }
        }
        let mut coupled: Vec<Coupling> = modules
            .iter()
            .map(|&m| {
                let out = lifted.out.get(m as usize).map(Vec::as_slice).unwrap_or(&[]);
                Coupling {
                    module: names[m as usize].clone(),
                    fan_in: fan_in[m as usize],
                    fan_out: out.len() as u64,
                    edges_in: edges_in[m as usize],
                    edges_out: out.iter().map(|(_, w)| w).sum(),
                }
            })
            .filter(|c| c.fan_in + c.fan_out > 0)
            .collect();
        coupled.sort_by(|a, b| {
            (b.fan_in + b.fan_out)
                .cmp(&(a.fan_in + a.fan_out))
                .then((b.edges_in + b.edges_out).cmp(&(a.edges_in + a.edges_out)))
                .then(a.module.cmp(&b.module))
        });
        coupled.truncate(limit);
        let hotspots = hotspots(&loaded, &pr.scores, limit);
        let module_edges = modules
            .iter()
            .map(|&m| lifted.out.get(m as usize).map_or(0, Vec::len))
            .sum();
        Ok(Architecture {
            generation: self.generation(),
            modules: modules.len(),
            module_edges,
            layers,
            cycles,
            coupled,
            hotspots,
            cached: pr.cached,
            compute_ms: pr.compute_ms,
        })
    }
}

/// Groups for lifting: per node, its file (`module = false`) or its file's directory, and the
/// group names.
fn groups(g: &Graph, module: bool) -> (Vec<String>, Vec<u32>) {
    let mut names: Vec<String> = Vec::new();
    let mut ids: HashMap<String, u32> = HashMap::new();
    let mut group = Vec::with_capacity(g.len());
    for ix in 0..g.len() as Ix {
        let path = &g.node(ix).path;
        let key = if module { dir_of(path) } else { path.as_str() };
        let id = match ids.get(key) {
            Some(&id) => id,
            None => {
                let id = names.len() as u32;
                names.push(key.to_string());
                ids.insert(key.to_string(), id);
                id
            }
        };
        group.push(id);
    }
    (names, group)
}

/// Longest-path levels of a DAG given each node's successors (dependencies): 0 for nodes
/// with none, else one more than the highest successor. Iterative.
fn dag_levels(deps_of: &[HashSet<u32>]) -> Vec<u32> {
    let n = deps_of.len();
    let mut level = vec![u32::MAX; n];
    let mut stack: Vec<(u32, bool)> = Vec::new();
    for start in 0..n as u32 {
        if level[start as usize] != u32::MAX {
            continue;
        }
        stack.push((start, false));
        while let Some((v, expanded)) = stack.pop() {
            if level[v as usize] != u32::MAX {
                continue;
            }
            if expanded {
                let l = deps_of[v as usize]
                    .iter()
                    .map(|&d| level[d as usize].saturating_add(1))
                    .filter(|&l| l != u32::MAX)
                    .max()
                    .unwrap_or(0);
                level[v as usize] = l;
            } else {
                stack.push((v, true));
                for &d in &deps_of[v as usize] {
                    if level[d as usize] == u32::MAX {
                        stack.push((d, false));
                    }
                }
            }
        }
    }
    level
}

fn hotspots(loaded: &Loaded, scores: &[f64], limit: usize) -> Vec<Hotspot> {
    let g = &*loaded.graph;
    let ranked = scores.iter().filter(|s| **s > 0.0).count().max(1) as f64;
    let mut spots: Vec<(f64, Ix, u32, u32, f64)> = Vec::new();
    for ix in 0..g.len() as Ix {
        let n = g.node(ix);
        let Some(c) = n.complexity else { continue };
        if !n.kind.is_callable() || is_test_path(&n.path) {
            continue;
        }
        let lines = n.end_line.saturating_sub(n.start_line) + 1;
        let centrality = scores.get(ix as usize).copied().unwrap_or(0.0) * ranked;
        let score = f64::from(lines) * f64::from(c) * centrality;
        if score > 0.0 {
            spots.push((score, ix, lines, c, centrality));
        }
    }
    spots.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    spots
        .into_iter()
        .take(limit)
        .map(|(score, ix, lines, complexity, centrality)| Hotspot {
            node: node_ref(loaded, ix),
            lines,
            complexity,
            centrality: round2(centrality),
            score: round2(score),
        })
        .collect()
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// The label of a community: the deepest directory holding more than half of its members
/// (product code counted when there is any: tests join the communities they exercise), with
/// the share of those members in it, and when that directory is broad (one or two levels)
/// the directory most members are in (`django (django/template 31%)`); when no directory holds
/// more than half, the dominant directory and how many others there are.
fn label_of(g: &Graph, members: &[Ix]) -> (String, f64) {
    let product: Vec<Ix> = members
        .iter()
        .copied()
        .filter(|&ix| !is_test_path(&g.node(ix).path))
        .collect();
    let counted = if product.is_empty() {
        members
    } else {
        &product
    };
    if counted.is_empty() {
        return (String::new(), 0.0);
    }
    let total = counted.len();
    // Every directory prefix of every member, counted once per member.
    let mut prefixes: HashMap<&str, usize> = HashMap::new();
    let mut dirs: HashMap<&str, usize> = HashMap::new();
    for &ix in counted {
        let dir = dir_of(&g.node(ix).path);
        *dirs.entry(dir).or_default() += 1;
        if dir == "." {
            *prefixes.entry(".").or_default() += 1;
            continue;
        }
        for (i, c) in dir.char_indices() {
            if c == '/' {
                *prefixes.entry(&dir[..i]).or_default() += 1;
            }
        }
        *prefixes.entry(dir).or_default() += 1;
    }
    let best = prefixes
        .iter()
        .filter(|(_, n)| **n * 2 > total)
        .max_by(|a, b| {
            let depth = |p: &str| {
                if p == "." {
                    0
                } else {
                    p.matches('/').count() + 1
                }
            };
            depth(a.0)
                .cmp(&depth(b.0))
                .then(a.1.cmp(b.1))
                .then(b.0.cmp(a.0))
        });
    let Some((&top, &n)) = dirs.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))) else {
        return (String::new(), 0.0);
    };
    if let Some((p, m)) = best {
        let share = round2(*m as f64 / total as f64);
        // A broad prefix says little: name the directory most members are in too.
        if top != *p && p.matches('/').count() < 2 {
            let pct = (n as f64 * 100.0 / total as f64).round();
            return (format!("{p} ({top} {pct}%)"), share);
        }
        return (p.to_string(), share);
    }
    (
        format!("{top} (+{} directories)", dirs.len() - 1),
        round2(n as f64 / total as f64),
    )
}

fn dependency_kind_names() -> Vec<&'static str> {
    EdgeFilter::dependencies()
        .kinds()
        .into_iter()
        .map(EdgeKind::as_str)
        .collect()
}

pub(crate) fn parse_kinds(kinds: &[String]) -> Result<Vec<NodeKind>> {
    let mut out = Vec::new();
    for k in kinds.iter().flat_map(|k| k.split(',')) {
        let k = k.trim();
        if k.is_empty() {
            continue;
        }
        match NodeKind::parse(k) {
            Some(kind) => out.push(kind),
            None => {
                let known: Vec<&str> = NodeKind::ALL.iter().map(|k| k.as_str()).collect();
                return Err(Error::InvalidArgument(format!(
                    "unknown kind {k:?}; kinds: {}",
                    known.join(", ")
                )));
            }
        }
    }
    Ok(out)
}

/// The node reference of `ix`.
pub(crate) fn node_ref(loaded: &Loaded, ix: Ix) -> NodeRef {
    let n = loaded.graph.node(ix);
    NodeRef {
        id: loaded.stable_ids[ix as usize].clone(),
        kind: n.kind.as_str(),
        name: n.name.clone(),
        qualified_name: n.qname.clone(),
        path: n.path.clone(),
        line: n.start_line,
    }
}

/// Dependency edges into and out of a node (call sites counted, self-loops not).
fn degree(g: &Graph, ix: Ix) -> (u64, u64) {
    let deps = EdgeFilter::dependencies();
    let sum = |edges: &[sextant_graph::Edge]| {
        edges
            .iter()
            .filter(|e| deps.allows(e.kind) && e.other != ix)
            .map(|e| u64::from(e.count))
            .sum()
    };
    (sum(g.in_edges(ix)), sum(g.out_edges(ix)))
}

/// The `limit` best-scoring nodes passing `keep` (score > 0), best first, ties by index.
fn top_ranked(
    loaded: &Loaded,
    scores: &[f64],
    limit: usize,
    keep: &dyn Fn(Ix) -> bool,
) -> Vec<RankedNode> {
    let mut order: Vec<(f64, Ix)> = scores
        .iter()
        .enumerate()
        .filter(|(ix, s)| **s > 0.0 && keep(*ix as Ix))
        .map(|(ix, s)| (*s, ix as Ix))
        .collect();
    order.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    order
        .into_iter()
        .take(limit)
        .enumerate()
        .map(|(i, (score, ix))| {
            let (incoming, outgoing) = degree(&loaded.graph, ix);
            RankedNode {
                rank: i + 1,
                node: node_ref(loaded, ix),
                score,
                incoming,
                outgoing,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_encoding_round_trips() {
        let bytes = encode(&serde_json::json!({"a": 1}), &[0.5, 1.25], &[7, 8, 9]);
        let (h, f, i) = decode(&bytes).unwrap();
        assert_eq!(h["a"], 1);
        assert_eq!(f, vec![0.5, 1.25]);
        assert_eq!(i, vec![7, 8, 9]);
        assert!(decode(&bytes[..bytes.len() - 1]).is_none());
        assert!(decode(b"nope").is_none());
    }

    #[test]
    fn dag_levels_bottom_up() {
        // 0 -> 1 -> 2, 0 -> 2, 3 alone
        let deps = vec![
            HashSet::from([1, 2]),
            HashSet::from([2]),
            HashSet::new(),
            HashSet::new(),
        ];
        assert_eq!(dag_levels(&deps), vec![2, 1, 0, 0]);
    }

    fn graph_of(paths: &[&str]) -> Graph {
        let nodes = paths
            .iter()
            .enumerate()
            .map(|(i, p)| NodeData {
                id: i as i64 + 1,
                kind: NodeKind::Function,
                name: format!("f{i}"),
                qname: format!("m.f{i}"),
                path: p.to_string(),
                language: "python".into(),
                start_line: 1,
                end_line: 2,
                visibility: sextant_graph::Visibility::Public,
                modifiers: String::new(),
                complexity: Some(1),
                parent_id: None,
                signature: String::new(),
            })
            .collect();
        Graph::new(nodes, &[])
    }

    #[test]
    fn community_labels_prefer_the_deepest_majority_directory_of_product_code() {
        let g = graph_of(&[
            "django/db/models/base.py",
            "django/db/models/fields/a.py",
            "django/db/models/fields/b.py",
            "django/utils/x.py",
            "tests/a/test_x.py",
            "tests/b/test_y.py",
            "tests/c/test_z.py",
        ]);
        let all: Vec<Ix> = (0..g.len() as Ix).collect();
        assert_eq!(label_of(&g, &all), ("django/db/models".to_string(), 0.75));
        let broad = graph_of(&[
            "django/a/x.py",
            "django/b/y.py",
            "django/c/z.py",
            "django/c/w.py",
        ]);
        assert_eq!(
            label_of(&broad, &[0, 1, 2, 3]),
            ("django (django/c 50%)".to_string(), 1.0)
        );
        // Only tests: labelled by them.
        assert_eq!(label_of(&g, &[4, 5, 6]).0, "tests (tests/a 33%)");
        let scattered = graph_of(&["a/x.py", "b/y.py", "c/z.py"]);
        assert_eq!(label_of(&scattered, &[0, 1, 2]).0, "a (+2 directories)");
        let root = graph_of(&["setup.py", "conf.py"]);
        assert_eq!(label_of(&root, &[0, 1]), (".".to_string(), 1.0));
    }

    #[test]
    fn targets_and_dirs() {
        assert_eq!(target_of("crates/engine/src/lib.rs"), "crates/engine");
        assert_eq!(target_of("django/db/models.py"), "django");
        assert_eq!(target_of("setup.py"), ".");
        assert_eq!(dir_of("a/b/c.py"), "a/b");
        assert_eq!(dir_of("c.py"), ".");
    }
}
