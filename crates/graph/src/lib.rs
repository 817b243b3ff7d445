//! The code graph of one published generation, in memory: nodes with their properties and a
//! compressed (CSR) adjacency in both directions, built once and shared read-only. Algorithms
//! (`algo`) and the Cypher subset (`cypher`) run over it; nothing here does I/O.
//!
//! Nodes are addressed by a dense index ([`Ix`]); the database id of each node is kept in
//! [`NodeData::id`] and mapped back with [`Graph::index_of`]. Containment (`parent`) is
//! materialised as `contains` edges so patterns and traversals see it like any other kind.
//! Parallel edges of one kind between the same pair of nodes (several call sites) are merged
//! into one [`Edge`] whose `count` says how many there were; the strongest provenance wins.

pub mod algo;
pub mod cypher;

use rustc_hash::FxHashMap;
pub use sextant_model::{EdgeKind, NodeKind, Provenance, Visibility};

/// A dense node index.
pub type Ix = u32;

/// One node and the properties queries can see.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeData {
    /// The database id (stable within a generation).
    pub id: i64,
    pub kind: NodeKind,
    pub name: String,
    pub qname: String,
    /// The file's repository-relative path.
    pub path: String,
    pub language: String,
    pub start_line: u32,
    pub end_line: u32,
    pub visibility: Visibility,
    /// Comma-separated modifiers as extracted (`static,async`, decorators as `@name`).
    pub modifiers: String,
    /// Cyclomatic complexity of callables.
    pub complexity: Option<u32>,
    /// The database id of the containing node (`None` for File nodes).
    pub parent_id: Option<i64>,
    pub signature: String,
}

/// An edge as loaded: endpoints by database id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EdgeInput {
    pub src: i64,
    pub dst: i64,
    pub kind: EdgeKind,
    pub provenance: Provenance,
}

/// One adjacency entry: the node at the other end, the kind, and how many parallel edges of
/// that kind were merged into it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    pub other: Ix,
    pub kind: EdgeKind,
    pub provenance: Provenance,
    pub count: u32,
}

/// How many nodes of each kind and merged edges of each kind a graph has, by kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KindCounts {
    pub nodes: Vec<(NodeKind, usize)>,
    pub edges: Vec<(EdgeKind, usize)>,
}

/// The graph: nodes plus out- and in-adjacency in CSR form, each node's entries sorted by
/// (kind, other).
#[derive(Debug, Default)]
pub struct Graph {
    nodes: Vec<NodeData>,
    by_id: FxHashMap<i64, Ix>,
    out_start: Vec<u32>,
    out: Vec<Edge>,
    in_start: Vec<u32>,
    inc: Vec<Edge>,
    /// Lookup indexes by name, qualified name and kind, built on first use.
    lookup: std::sync::OnceLock<Lookup>,
}

/// Node indexes sorted by (key, index), so the nodes sharing a key are one slice in `Ix` order.
#[derive(Debug, Default)]
struct Lookup {
    by_name: Vec<Ix>,
    by_qname: Vec<Ix>,
    by_kind: Vec<Ix>,
}

fn provenance_rank(p: Provenance) -> u8 {
    match p {
        Provenance::Asserted => 0,
        Provenance::Observed => 1,
        Provenance::Inferred => 2,
        Provenance::Ambiguous => 3,
    }
}

fn csr(n: usize, mut list: Vec<(Ix, Edge)>) -> (Vec<u32>, Vec<Edge>) {
    list.sort_unstable_by_key(|(from, e)| (*from, e.kind, e.other, provenance_rank(e.provenance)));
    // Merge parallel edges of one kind; the first (strongest) provenance is kept.
    let mut merged: Vec<(Ix, Edge)> = Vec::with_capacity(list.len());
    for (from, e) in list {
        match merged.last_mut() {
            Some((f, last)) if *f == from && last.kind == e.kind && last.other == e.other => {
                last.count += e.count;
            }
            _ => merged.push((from, e)),
        }
    }
    let mut start = vec![0u32; n + 1];
    for (from, _) in &merged {
        start[*from as usize + 1] += 1;
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    (start, merged.into_iter().map(|(_, e)| e).collect())
}

impl Graph {
    /// Builds the graph. Nodes keep their order (callers pass them sorted, e.g. by path and
    /// position, so indexes are deterministic); edges whose ends are not among the nodes are
    /// dropped; `contains` edges are added from `parent_id`.
    pub fn new(nodes: Vec<NodeData>, edges: &[EdgeInput]) -> Graph {
        let by_id: FxHashMap<i64, Ix> = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.id, i as Ix))
            .collect();
        let mut forward: Vec<(Ix, Edge)> = Vec::with_capacity(edges.len() + nodes.len());
        let mut push = |src: Ix, dst: Ix, kind: EdgeKind, provenance: Provenance| {
            forward.push((
                src,
                Edge {
                    other: dst,
                    kind,
                    provenance,
                    count: 1,
                },
            ));
        };
        for (i, n) in nodes.iter().enumerate() {
            if let Some(&p) = n.parent_id.and_then(|p| by_id.get(&p)) {
                push(p, i as Ix, EdgeKind::Contains, Provenance::Asserted);
            }
        }
        for e in edges {
            if let (Some(&s), Some(&d)) = (by_id.get(&e.src), by_id.get(&e.dst)) {
                push(s, d, e.kind, e.provenance);
            }
        }
        let backward: Vec<(Ix, Edge)> = forward
            .iter()
            .map(|(src, e)| (e.other, Edge { other: *src, ..*e }))
            .collect();
        let n = nodes.len();
        let (out_start, out) = csr(n, forward);
        let (in_start, inc) = csr(n, backward);
        Graph {
            nodes,
            by_id,
            out_start,
            out,
            in_start,
            inc,
            lookup: std::sync::OnceLock::new(),
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Number of merged edges (contains included).
    pub fn edge_count(&self) -> usize {
        self.out.len()
    }

    pub fn node(&self, ix: Ix) -> &NodeData {
        &self.nodes[ix as usize]
    }

    pub fn nodes(&self) -> &[NodeData] {
        &self.nodes
    }

    /// The index of a database id.
    pub fn index_of(&self, id: i64) -> Option<Ix> {
        self.by_id.get(&id).copied()
    }

    /// Edges leaving `ix`, sorted by (kind, other).
    pub fn out_edges(&self, ix: Ix) -> &[Edge] {
        let i = ix as usize;
        &self.out[self.out_start[i] as usize..self.out_start[i + 1] as usize]
    }

    /// Edges arriving at `ix` (`other` is the source), sorted by (kind, other).
    pub fn in_edges(&self, ix: Ix) -> &[Edge] {
        let i = ix as usize;
        &self.inc[self.in_start[i] as usize..self.in_start[i + 1] as usize]
    }

    /// Edges leaving `ix` of one kind.
    pub fn out_of_kind(&self, ix: Ix, kind: EdgeKind) -> &[Edge] {
        of_kind(self.out_edges(ix), kind)
    }

    /// Edges arriving at `ix` of one kind.
    pub fn in_of_kind(&self, ix: Ix, kind: EdgeKind) -> &[Edge] {
        of_kind(self.in_edges(ix), kind)
    }

    /// The containing node.
    pub fn parent(&self, ix: Ix) -> Option<Ix> {
        self.in_of_kind(ix, EdgeKind::Contains)
            .first()
            .map(|e| e.other)
    }

    /// The File node that (transitively) contains `ix` (itself for a File node).
    pub fn file_of(&self, ix: Ix) -> Ix {
        let mut at = ix;
        while let Some(p) = self.parent(at) {
            at = p;
        }
        at
    }

    fn lookup(&self) -> &Lookup {
        self.lookup.get_or_init(|| {
            let all: Vec<Ix> = (0..self.nodes.len() as Ix).collect();
            let mut by_name = all.clone();
            by_name.sort_by(|&a, &b| self.node(a).name.cmp(&self.node(b).name).then(a.cmp(&b)));
            let mut by_qname = all.clone();
            by_qname.sort_by(|&a, &b| self.node(a).qname.cmp(&self.node(b).qname).then(a.cmp(&b)));
            let mut by_kind = all;
            by_kind.sort_by_key(|&a| (self.node(a).kind, a));
            Lookup {
                by_name,
                by_qname,
                by_kind,
            }
        })
    }

    /// The nodes whose `name` is exactly `name`, in index order (an index built on first use).
    pub fn nodes_named(&self, name: &str) -> &[Ix] {
        let list = &self.lookup().by_name;
        let lo = list.partition_point(|&i| self.node(i).name.as_str() < name);
        let hi = list.partition_point(|&i| self.node(i).name.as_str() <= name);
        &list[lo..hi]
    }

    /// The nodes whose qualified name is exactly `qname`, in index order.
    pub fn nodes_with_qname(&self, qname: &str) -> &[Ix] {
        let list = &self.lookup().by_qname;
        let lo = list.partition_point(|&i| self.node(i).qname.as_str() < qname);
        let hi = list.partition_point(|&i| self.node(i).qname.as_str() <= qname);
        &list[lo..hi]
    }

    /// The nodes of one kind, in index order.
    pub fn nodes_of_kind(&self, kind: NodeKind) -> &[Ix] {
        let list = &self.lookup().by_kind;
        let lo = list.partition_point(|&i| self.node(i).kind < kind);
        let hi = list.partition_point(|&i| self.node(i).kind <= kind);
        &list[lo..hi]
    }

    /// Counts of nodes by kind and of merged edges by kind (for `schema`).
    pub fn kind_counts(&self) -> KindCounts {
        let mut nodes: FxHashMap<NodeKind, usize> = FxHashMap::default();
        for n in &self.nodes {
            *nodes.entry(n.kind).or_default() += 1;
        }
        let mut edges: FxHashMap<EdgeKind, usize> = FxHashMap::default();
        for e in &self.out {
            *edges.entry(e.kind).or_default() += 1;
        }
        let mut nodes: Vec<_> = nodes.into_iter().collect();
        nodes.sort_by_key(|(k, _)| *k);
        let mut edges: Vec<_> = edges.into_iter().collect();
        edges.sort_by_key(|(k, _)| *k);
        KindCounts { nodes, edges }
    }
}

fn of_kind(list: &[Edge], kind: EdgeKind) -> &[Edge] {
    let lo = list.partition_point(|e| e.kind < kind);
    let hi = list.partition_point(|e| e.kind <= kind);
    &list[lo..hi]
}

/// Small graphs for tests (here and in the algorithm and Cypher modules).
#[cfg(test)]
pub(crate) mod testing {
    use super::*;

    /// A node with the given id, kind and qualified name (name = last segment after `.`),
    /// in `path`, contained in `parent`.
    pub fn node(id: i64, kind: NodeKind, qname: &str, path: &str, parent: Option<i64>) -> NodeData {
        NodeData {
            id,
            kind,
            name: qname.rsplit('.').next().unwrap_or(qname).to_string(),
            qname: qname.to_string(),
            path: path.to_string(),
            language: "python".into(),
            start_line: id as u32,
            end_line: id as u32 + 1,
            visibility: Visibility::Public,
            modifiers: String::new(),
            complexity: kind.is_callable().then_some(1),
            parent_id: parent,
            signature: String::new(),
        }
    }

    pub fn edge(src: i64, dst: i64, kind: EdgeKind) -> EdgeInput {
        EdgeInput {
            src,
            dst,
            kind,
            provenance: Provenance::Inferred,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::testing::{edge, node};
    use super::*;

    #[test]
    fn builds_both_directions_merges_parallel_edges_and_adds_containment() {
        let nodes = vec![
            node(1, NodeKind::File, "a.py", "a.py", None),
            node(2, NodeKind::Function, "a.f", "a.py", Some(1)),
            node(3, NodeKind::Function, "a.g", "a.py", Some(1)),
        ];
        let mut ambiguous = edge(2, 3, EdgeKind::Calls);
        ambiguous.provenance = Provenance::Ambiguous;
        let edges = vec![
            ambiguous,
            edge(2, 3, EdgeKind::Calls),
            edge(3, 2, EdgeKind::Calls),
            edge(2, 99, EdgeKind::Calls),
        ];
        let g = Graph::new(nodes, &edges);
        assert_eq!(g.len(), 3);
        let f = g.index_of(2).unwrap();
        let calls = g.out_of_kind(f, EdgeKind::Calls);
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].count, 2);
        assert_eq!(calls[0].provenance, Provenance::Inferred);
        assert_eq!(g.in_of_kind(f, EdgeKind::Calls).len(), 1);
        assert_eq!(g.parent(f), g.index_of(1));
        assert_eq!(g.file_of(f), g.index_of(1).unwrap());
        assert_eq!(
            g.out_of_kind(g.index_of(1).unwrap(), EdgeKind::Contains)
                .len(),
            2
        );
        // contains 2 + calls 2 (the edge to an unknown node is dropped)
        assert_eq!(g.edge_count(), 4);
    }

    #[test]
    fn lookups_by_name_qualified_name_and_kind() {
        let nodes = vec![
            node(1, NodeKind::File, "a.py", "a.py", None),
            node(2, NodeKind::Function, "a.get", "a.py", Some(1)),
            node(3, NodeKind::Class, "a.C", "a.py", Some(1)),
            node(4, NodeKind::Method, "a.C.get", "a.py", Some(3)),
        ];
        let g = Graph::new(nodes, &[]);
        assert_eq!(g.nodes_named("get"), &[1, 3]);
        assert_eq!(g.nodes_named("nope"), &[] as &[Ix]);
        assert_eq!(g.nodes_with_qname("a.C.get"), &[3]);
        assert_eq!(g.nodes_of_kind(NodeKind::Class), &[2]);
        assert_eq!(g.nodes_of_kind(NodeKind::Enum), &[] as &[Ix]);
    }
}
