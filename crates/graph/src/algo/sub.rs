//! The filtered, densely renumbered view the algorithms run on.

use super::{EdgeFilter, NONE};
use crate::{Graph, Ix};

/// The included nodes of a graph renumbered `0..len()` in [`Ix`] order, with the allowed edges
/// between them in CSR form. Edges of several allowed kinds (and the parallel edges already
/// merged into one [`crate::Edge`]) between the same ordered pair become one entry whose
/// weight is the sum of their `count`s; each node's targets are sorted ascending. Self-loops
/// are kept (SCC needs them; the other algorithms skip them).
///
/// Building it is O(V + E log d) where d is the largest out-degree, and it is deterministic.
#[derive(Debug, Clone)]
pub struct Subgraph {
    global: Vec<Ix>,
    local: Vec<u32>,
    start: Vec<u32>,
    adj: Vec<u32>,
    weight: Vec<u64>,
}

impl Subgraph {
    /// The view of `g` restricted to nodes passing `nodes` and edges allowed by `edges`.
    pub fn build(g: &Graph, edges: &EdgeFilter, nodes: &dyn Fn(Ix) -> bool) -> Subgraph {
        let total = g.len();
        let mut local = vec![NONE; total];
        let mut global = Vec::new();
        for ix in 0..total as Ix {
            if nodes(ix) {
                local[ix as usize] = global.len() as u32;
                global.push(ix);
            }
        }
        let mut start = Vec::with_capacity(global.len() + 1);
        start.push(0u32);
        let mut adj: Vec<u32> = Vec::new();
        let mut weight: Vec<u64> = Vec::new();
        let mut buf: Vec<(u32, u64)> = Vec::new();
        for &u in &global {
            buf.clear();
            for e in g.out_edges(u) {
                if edges.allows(e.kind) {
                    let v = local[e.other as usize];
                    if v != NONE {
                        buf.push((v, u64::from(e.count)));
                    }
                }
            }
            // Integer sums do not depend on the order equal targets are met in.
            buf.sort_unstable_by_key(|&(v, _)| v);
            let first = adj.len();
            for &(v, w) in &buf {
                if adj.len() > first && adj.last() == Some(&v) {
                    *weight.last_mut().expect("pushed with adj") += w;
                } else {
                    adj.push(v);
                    weight.push(w);
                }
            }
            start.push(u32::try_from(adj.len()).expect("fewer than 2^32 edges"));
        }
        Subgraph {
            global,
            local,
            start,
            adj,
            weight,
        }
    }

    /// Number of included nodes.
    pub fn len(&self) -> usize {
        self.global.len()
    }

    /// Whether no node is included.
    pub fn is_empty(&self) -> bool {
        self.global.is_empty()
    }

    /// Number of merged edges (self-loops included).
    pub fn edge_count(&self) -> usize {
        self.adj.len()
    }

    /// The graph index of local node `u`.
    #[inline]
    pub fn global(&self, u: u32) -> Ix {
        self.global[u as usize]
    }

    /// The graph indexes of all local nodes, ascending.
    pub fn globals(&self) -> &[Ix] {
        &self.global
    }

    /// The local index of graph node `ix` (`None` when excluded or out of range).
    #[inline]
    pub fn local(&self, ix: Ix) -> Option<u32> {
        self.local.get(ix as usize).copied().filter(|&u| u != NONE)
    }

    /// Size of the graph this view was built from (length of per-[`Ix`] results).
    pub fn graph_len(&self) -> usize {
        self.local.len()
    }

    /// Targets of local node `u`, sorted ascending.
    #[inline]
    pub fn targets(&self, u: u32) -> &[u32] {
        let u = u as usize;
        &self.adj[self.start[u] as usize..self.start[u + 1] as usize]
    }

    /// Weights of the edges of [`Subgraph::targets`], in the same order.
    #[inline]
    pub fn weights(&self, u: u32) -> &[u64] {
        let u = u as usize;
        &self.weight[self.start[u] as usize..self.start[u + 1] as usize]
    }

    /// Whether local node `u` has an edge to itself.
    pub fn has_self_loop(&self, u: u32) -> bool {
        self.targets(u).binary_search(&u).is_ok()
    }

    /// CSR offsets (length `len() + 1`) and targets, for the CSR-level helpers.
    pub(crate) fn csr(&self) -> (&[u32], &[u32]) {
        (&self.start, &self.adj)
    }

    /// All edge weights, in the order of the CSR targets.
    pub(crate) fn all_weights(&self) -> &[u64] {
        &self.weight
    }

    /// Spreads per-local values over a per-[`Ix`] vector, `absent` for excluded nodes.
    pub(crate) fn scatter<T: Copy>(&self, values: &[T], absent: T) -> Vec<T> {
        let mut out = vec![absent; self.graph_len()];
        for (u, &ix) in self.global.iter().enumerate() {
            out[ix as usize] = values[u];
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{edge, node};
    use crate::{EdgeKind, NodeKind};

    #[test]
    fn merges_kinds_and_drops_excluded_nodes() {
        let nodes = vec![
            node(1, NodeKind::File, "a.py", "a.py", None),
            node(2, NodeKind::Function, "a.f", "a.py", Some(1)),
            node(3, NodeKind::Function, "a.g", "a.py", Some(1)),
        ];
        let edges = vec![
            edge(2, 3, EdgeKind::Calls),
            edge(2, 3, EdgeKind::Calls),
            edge(2, 3, EdgeKind::References),
            edge(3, 3, EdgeKind::Calls),
            edge(3, 2, EdgeKind::Tests),
        ];
        let g = crate::Graph::new(nodes, &edges);
        let not_file = |ix: Ix| g.node(ix).kind != NodeKind::File;
        let s = Subgraph::build(&g, &EdgeFilter::dependencies(), &not_file);
        assert_eq!(s.len(), 2);
        assert_eq!(s.local(0), None);
        assert_eq!(s.global(0), 1);
        assert_eq!(s.targets(0), &[1]);
        assert_eq!(s.weights(0), &[3]);
        assert!(s.has_self_loop(1));
        assert!(!s.has_self_loop(0));
        assert_eq!(s.edge_count(), 2);
        assert_eq!(s.scatter(&[5, 6], 0), vec![0, 5, 6]);
    }
}
