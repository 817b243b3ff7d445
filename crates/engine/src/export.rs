//! Whole-graph export of the active generation: every node, and every edge (containment from
//! `parent_id` included), plus the call graph by qualified name. Plain structs; the surfaces pick
//! the format (JSON, JSON lines, DOT, GraphML).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::Result;
use crate::query::Repo;

/// Edge kind of containment (`nodes.parent_id`).
const CONTAINS: &str = "contains";

/// A node of an export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportNode {
    /// The node's id in this database; edges refer to it.
    pub id: i64,
    pub stable_id: String,
    pub kind: String,
    pub name: String,
    pub qualified_name: String,
    pub path: String,
    pub start_line: u32,
    pub end_line: u32,
    pub language: String,
}

/// Where the reference or import behind an edge is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EdgeSite {
    pub path: String,
    pub line: u32,
}

/// An edge of an export.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportEdge {
    /// [`ExportNode::id`] of the source.
    pub src: i64,
    /// [`ExportNode::id`] of the target.
    pub dst: i64,
    pub src_qualified_name: String,
    pub dst_qualified_name: String,
    pub kind: String,
    pub provenance: String,
    /// The resolver rule (empty for containment).
    pub rule: String,
    /// `None` for containment.
    pub site: Option<EdgeSite>,
}

/// The nodes and edges of one generation.
#[derive(Debug, Clone, Default)]
pub struct GraphExport {
    pub generation: i64,
    /// The commit the generation was built from (`None` outside git).
    pub commit: Option<String>,
    /// By path, then position (a file's File node first).
    pub nodes: Vec<ExportNode>,
    /// Containment in node order, then reference and import edges by site.
    pub edges: Vec<ExportEdge>,
}

impl Repo {
    /// Every node and every edge of the active generation whose kind is in `kinds` (empty = all
    /// kinds, `contains` included). Unknown kinds match nothing. Edges come from reference sites
    /// and imports, edges derived from the hierarchy (`overrides`, no site), and containment.
    pub fn export_graph(&self, kinds: &[String]) -> Result<GraphExport> {
        let wanted = |k: &str| kinds.is_empty() || kinds.iter().any(|w| w == k);
        let generation = self.generation();
        self.store().snapshot(|s| {
            let rows = s.generation_node_rows(generation)?;
            let position: HashMap<i64, usize> =
                rows.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
            let qname = |id: i64| position.get(&id).map(|&i| rows[i].qname.clone());
            let mut edges = Vec::new();
            if wanted(CONTAINS) {
                for n in &rows {
                    let Some(parent) = n.parent_id else { continue };
                    let Some(src_qualified_name) = qname(parent) else {
                        continue;
                    };
                    edges.push(ExportEdge {
                        src: parent,
                        dst: n.id,
                        src_qualified_name,
                        dst_qualified_name: n.qname.clone(),
                        kind: CONTAINS.into(),
                        provenance: "asserted".into(),
                        rule: String::new(),
                        site: None,
                    });
                }
            }
            if kinds.is_empty() || kinds.iter().any(|k| k != CONTAINS) {
                let paths: HashMap<i64, String> = s
                    .files(generation)?
                    .into_iter()
                    .map(|f| (f.id, f.path))
                    .collect();
                // (site file, line, col) of each reference and import.
                let refs: HashMap<i64, (i64, u32, u32)> = s
                    .generation_refs(generation)?
                    .into_iter()
                    .map(|r| (r.id, (r.file_id, r.line, r.col)))
                    .collect();
                let imports: HashMap<i64, (i64, u32, u32)> = s
                    .generation_imports(generation)?
                    .into_iter()
                    .map(|i| (i.id, (i.file_id, i.line, 0)))
                    .collect();
                let mut sited = Vec::new();
                for (list, sites) in [
                    (s.generation_ref_edges(generation)?, &refs),
                    (s.generation_import_edges(generation)?, &imports),
                    (s.generation_derived_edges(generation)?, &HashMap::new()),
                ] {
                    for e in list {
                        if !wanted(&e.kind) {
                            continue;
                        }
                        let (Some(src_qualified_name), Some(dst_qualified_name)) =
                            (qname(e.src), qname(e.dst))
                        else {
                            continue;
                        };
                        let site = sites.get(&e.ref_id).and_then(|&(file, line, col)| {
                            paths.get(&file).map(|p| (p.clone(), line, col))
                        });
                        let key = site.clone().unwrap_or_default();
                        sited.push((
                            key,
                            ExportEdge {
                                src: e.src,
                                dst: e.dst,
                                src_qualified_name,
                                dst_qualified_name,
                                kind: e.kind,
                                provenance: e.provenance,
                                rule: e.rule,
                                site: site.map(|(path, line, _)| EdgeSite { path, line }),
                            },
                        ));
                    }
                }
                sited.sort_by(|(a, x), (b, y)| {
                    a.cmp(b)
                        .then_with(|| x.kind.cmp(&y.kind))
                        .then_with(|| (x.src, x.dst).cmp(&(y.src, y.dst)))
                });
                edges.extend(sited.into_iter().map(|(_, e)| e));
            }
            let commit = s.generation(generation)?.and_then(|g| g.commit);
            let nodes = rows
                .into_iter()
                .map(|n| ExportNode {
                    id: n.id,
                    stable_id: n.stable_id,
                    kind: n.kind,
                    name: n.name,
                    qualified_name: n.qname,
                    path: n.path,
                    start_line: n.span.start_line,
                    end_line: n.span.end_line,
                    language: n.language,
                })
                .collect();
            Ok(GraphExport {
                generation,
                commit,
                nodes,
                edges,
            })
        })
    }

    /// The call graph of the active generation from its `calls` edges: caller qualified name →
    /// sorted, deduplicated callee qualified names. Module-level calls (made from a File node)
    /// are keyed by the file's module name, or its path when the file has no module.
    pub fn call_graph(&self) -> Result<BTreeMap<String, Vec<String>>> {
        let generation = self.generation();
        self.store().snapshot(|s| {
            let modules: HashMap<i64, String> = s
                .files(generation)?
                .into_iter()
                .map(|f| {
                    let name = if f.module.is_empty() {
                        f.path
                    } else {
                        f.module
                    };
                    (f.node_id, name)
                })
                .collect();
            let names: HashMap<i64, String> = s
                .generation_nodes(generation)?
                .into_iter()
                .map(|n| {
                    let name = modules.get(&n.id).cloned().unwrap_or(n.qname);
                    (n.id, name)
                })
                .collect();
            let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
            for e in s.generation_ref_edges(generation)? {
                if e.kind != "calls" {
                    continue;
                }
                if let (Some(src), Some(dst)) = (names.get(&e.src), names.get(&e.dst)) {
                    graph.entry(src.clone()).or_default().insert(dst.clone());
                }
            }
            Ok(graph
                .into_iter()
                .map(|(k, v)| (k, v.into_iter().collect()))
                .collect())
        })
    }
}
