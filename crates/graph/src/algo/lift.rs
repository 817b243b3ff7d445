//! The quotient graph of a grouping (symbols → files, files → directories, ...).

use super::scc::tarjan;
use super::{EdgeFilter, NONE, Subgraph, collect_components};
use crate::{Graph, Ix};

/// A lifted (quotient) graph: one node per group id, edges between distinct groups.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Lifted {
    /// Number of group ids: one more than the largest id any included node was mapped to
    /// (ids need not all be used; unused ids are nodes without edges).
    pub groups: usize,
    /// Out-edges per group id: `(target group, summed count)`, sorted by target, never to
    /// itself.
    pub out: Vec<Vec<(u32, u64)>>,
}

impl Lifted {
    /// Number of lifted edges.
    pub fn edge_count(&self) -> usize {
        self.out.iter().map(Vec::len).sum()
    }

    /// The summed count of the edges from group `a` to group `b` (0 if none).
    pub fn weight(&self, a: u32, b: u32) -> u64 {
        self.out
            .get(a as usize)
            .and_then(|list| {
                list.binary_search_by_key(&b, |&(t, _)| t)
                    .ok()
                    .map(|i| list[i].1)
            })
            .unwrap_or(0)
    }
}

/// Lifts the included nodes and allowed edges to groups: every node `u` with `group(u) =
/// Some(a)` stands for group `a`, and each allowed edge `u → v` between included nodes of
/// different groups `a ≠ b` adds its `count` to the lifted edge `a → b`. Nodes mapped to `None`
/// are dropped with their edges; edges inside one group disappear.
///
/// Typical groupings: the file of a symbol (`|ix| Some(g.file_of(ix))`, group ids are then
/// file [`Ix`]s), or a directory number. `group` is called once per included node.
///
/// O(V + E log d) time, O(groups + E) memory. Deterministic.
pub fn lift(
    g: &Graph,
    edges: &EdgeFilter,
    nodes: &dyn Fn(Ix) -> bool,
    group: &dyn Fn(Ix) -> Option<u32>,
) -> Lifted {
    let sub = Subgraph::build(g, edges, nodes);
    let n = sub.len();
    let of: Vec<u32> = sub
        .globals()
        .iter()
        .map(|&ix| group(ix).unwrap_or(NONE))
        .collect();
    let groups = of
        .iter()
        .filter(|&&a| a != NONE)
        .map(|&a| a as usize + 1)
        .max()
        .unwrap_or(0);
    let mut out: Vec<Vec<(u32, u64)>> = vec![Vec::new(); groups];
    for u in 0..n as u32 {
        let a = of[u as usize];
        if a == NONE {
            continue;
        }
        for (&v, &w) in sub.targets(u).iter().zip(sub.weights(u)) {
            let b = of[v as usize];
            if b != NONE && b != a {
                out[a as usize].push((b, w));
            }
        }
    }
    for list in &mut out {
        list.sort_unstable_by_key(|&(b, _)| b);
        list.dedup_by(|later, kept| {
            if later.0 == kept.0 {
                kept.1 += later.1;
                true
            } else {
                false
            }
        });
        list.shrink_to_fit();
    }
    Lifted { groups, out }
}

/// The strongly connected components of a lifted graph with more than one group (cycles
/// among files, modules, directories), each sorted, ordered by size descending then first
/// group. Iterative Tarjan (shared with [`super::strongly_connected`]), O(groups + edges).
pub fn strongly_connected_lifted(lifted: &Lifted) -> Vec<Vec<u32>> {
    let mut start = Vec::with_capacity(lifted.out.len() + 1);
    let mut adj = Vec::with_capacity(lifted.edge_count());
    start.push(0u32);
    for list in &lifted.out {
        adj.extend(list.iter().map(|&(b, _)| b));
        start.push(u32::try_from(adj.len()).expect("fewer than 2^32 lifted edges"));
    }
    let (comp, count) = tarjan(&start, &adj);
    collect_components(&comp, count, |a| a as u32, |_| false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{edge, node};
    use crate::{EdgeKind, NodeKind};

    #[test]
    fn symbols_to_files_finds_a_file_cycle() {
        // a.py: f(2), g(3); b.py: h(5); c.py: k(7); d.py: m(9).
        // f → h, h → g (a ⇄ b), g → f (inside a), k → f (c → a only), m isolated.
        let nodes = vec![
            node(1, NodeKind::File, "a.py", "a.py", None),
            node(2, NodeKind::Function, "a.f", "a.py", Some(1)),
            node(3, NodeKind::Function, "a.g", "a.py", Some(1)),
            node(4, NodeKind::File, "b.py", "b.py", None),
            node(5, NodeKind::Function, "b.h", "b.py", Some(4)),
            node(6, NodeKind::File, "c.py", "c.py", None),
            node(7, NodeKind::Function, "c.k", "c.py", Some(6)),
            node(8, NodeKind::File, "d.py", "d.py", None),
            node(9, NodeKind::Function, "d.m", "d.py", Some(8)),
        ];
        let edges = vec![
            edge(2, 5, EdgeKind::Calls),
            edge(2, 5, EdgeKind::Calls),
            edge(2, 5, EdgeKind::References),
            edge(5, 3, EdgeKind::Calls),
            edge(3, 2, EdgeKind::Calls),
            edge(7, 2, EdgeKind::Calls),
        ];
        let g = Graph::new(nodes, &edges);
        let ix = |id| g.index_of(id).unwrap();
        let not_file = |i: Ix| g.node(i).kind != NodeKind::File;
        let lifted = lift(&g, &EdgeFilter::dependencies(), &not_file, &|i| {
            Some(g.file_of(i))
        });
        assert_eq!(lifted.groups, ix(8) as usize + 1);
        assert_eq!(lifted.weight(ix(1), ix(4)), 3);
        assert_eq!(lifted.weight(ix(4), ix(1)), 1);
        assert_eq!(lifted.weight(ix(6), ix(1)), 1);
        assert_eq!(lifted.weight(ix(1), ix(1)), 0);
        assert_eq!(lifted.edge_count(), 3);
        assert_eq!(lifted.out[ix(1) as usize], vec![(ix(4), 3)]);
        let cycles = strongly_connected_lifted(&lifted);
        assert_eq!(cycles, vec![vec![ix(1), ix(4)]]);

        // Dropping b.py's symbols from the grouping removes the cycle.
        let lifted = lift(&g, &EdgeFilter::dependencies(), &not_file, &|i| {
            (g.file_of(i) != ix(4)).then(|| g.file_of(i))
        });
        assert!(strongly_connected_lifted(&lifted).is_empty());
        assert!(strongly_connected_lifted(&Lifted::default()).is_empty());
    }
}
