//! Breadth-first reachability from a set of roots.

use super::{EdgeFilter, NONE};
use crate::{Graph, Ix};

/// Result of [`reach`]: a BFS forest over the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reach {
    /// BFS depth per [`Ix`] (0 for roots); `u32::MAX` when not reached.
    pub depth: Vec<u32>,
    /// The node each reached node was first discovered from, per [`Ix`]; `Ix::MAX` for roots
    /// and unreached nodes.
    pub parent: Vec<Ix>,
    /// Reached nodes in visit order (roots first, in the order given).
    pub order: Vec<Ix>,
}

impl Reach {
    /// Whether `ix` was reached.
    pub fn reached(&self, ix: Ix) -> bool {
        self.depth.get(ix as usize).is_some_and(|&d| d != NONE)
    }

    /// The BFS tree path from a root to `ix` (root first, `ix` last); empty when `ix` was not
    /// reached. A shortest path in edges among the allowed ones.
    pub fn path_to(&self, ix: Ix) -> Vec<Ix> {
        if !self.reached(ix) {
            return Vec::new();
        }
        let mut path = vec![ix];
        let mut at = ix;
        while self.parent[at as usize] != Ix::MAX {
            at = self.parent[at as usize];
            path.push(at);
        }
        path.reverse();
        path
    }
}

/// Breadth-first search forward along allowed out-edges from `roots`, through included nodes
/// only, to at most `max_depth` edges from the nearest root (`u32::MAX` for no limit; 0 visits
/// only the roots). Roots that are excluded by `nodes`, out of range or repeated are skipped.
///
/// Each node keeps the depth and parent of its first discovery; neighbours are visited in the
/// graph's adjacency order (kind, then target [`Ix`]), so the result is deterministic. Used for
/// dead code (what entry points never reach) and flows (call trees from an entry point).
///
/// O(V) memory for the per-node vectors plus O(reached nodes + their edges) time; the node
/// predicate is called at most once per node.
pub fn reach(
    g: &Graph,
    roots: &[Ix],
    edges: &EdgeFilter,
    nodes: &dyn Fn(Ix) -> bool,
    max_depth: u32,
) -> Reach {
    let n = g.len();
    let mut depth = vec![NONE; n];
    let mut parent = vec![Ix::MAX; n];
    // 0 unknown, 1 included, 2 excluded.
    let mut checked = vec![0u8; n];
    let included = |ix: Ix, checked: &mut [u8]| -> bool {
        let c = &mut checked[ix as usize];
        if *c == 0 {
            *c = if nodes(ix) { 1 } else { 2 };
        }
        *c == 1
    };
    let mut order: Vec<Ix> = Vec::new();
    for &r in roots {
        if (r as usize) < n && depth[r as usize] == NONE && included(r, &mut checked) {
            depth[r as usize] = 0;
            order.push(r);
        }
    }
    let mut head = 0;
    while head < order.len() {
        let u = order[head];
        head += 1;
        let du = depth[u as usize];
        if du >= max_depth {
            continue;
        }
        for e in g.out_edges(u) {
            let v = e.other;
            if edges.allows(e.kind) && depth[v as usize] == NONE && included(v, &mut checked) {
                depth[v as usize] = du + 1;
                parent[v as usize] = u;
                order.push(v);
            }
        }
    }
    Reach {
        depth,
        parent,
        order,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{edge, node};
    use crate::{EdgeInput, EdgeKind, NodeKind};

    fn functions(n: i64, edges: &[(i64, i64)]) -> Graph {
        let mut nodes = vec![node(0, NodeKind::File, "m.py", "m.py", None)];
        nodes.extend(
            (1..=n).map(|i| node(i, NodeKind::Function, &format!("m.f{i}"), "m.py", Some(0))),
        );
        let edges: Vec<EdgeInput> = edges
            .iter()
            .map(|&(a, b)| edge(a, b, EdgeKind::Calls))
            .collect();
        Graph::new(nodes, &edges)
    }

    #[test]
    fn bfs_tree_depths_paths_and_dead_code() {
        // 1 → 2 → 4, 1 → 3 → 4 → 5; 6 is dead; 7 → 1 is never followed backwards.
        let g = functions(7, &[(1, 2), (1, 3), (2, 4), (3, 4), (4, 5), (7, 1)]);
        let not_file = |ix: Ix| g.node(ix).kind != NodeKind::File;
        let r = reach(&g, &[1], &EdgeFilter::dependencies(), &not_file, u32::MAX);
        assert_eq!(r.order, vec![1, 2, 3, 4, 5]);
        assert_eq!(r.depth[4], 2);
        assert_eq!(r.depth[5], 3);
        assert_eq!(r.path_to(5), vec![1, 2, 4, 5]);
        assert_eq!(r.path_to(1), vec![1]);
        assert!(r.path_to(6).is_empty());
        let dead: Vec<Ix> = (0..g.len() as Ix)
            .filter(|&ix| not_file(ix) && !r.reached(ix))
            .collect();
        assert_eq!(dead, vec![6, 7]);

        let shallow = reach(&g, &[1], &EdgeFilter::dependencies(), &not_file, 1);
        assert_eq!(shallow.order, vec![1, 2, 3]);
        // Excluded node 2 is not a bridge; excluded and repeated roots are skipped.
        let r = reach(
            &g,
            &[0, 1, 1],
            &EdgeFilter::dependencies(),
            &|ix| ix != 0 && ix != 2,
            u32::MAX,
        );
        assert_eq!(r.order, vec![1, 3, 4, 5]);
        assert_eq!(r.path_to(4), vec![1, 3, 4]);
        // Containment edges when allowed.
        let r = reach(
            &g,
            &[0],
            &EdgeFilter::new(&[EdgeKind::Contains]),
            &|_| true,
            u32::MAX,
        );
        assert_eq!(r.order.len(), 8);
    }

    #[test]
    fn long_chain_does_not_overflow() {
        let n = 200_000u32;
        let mut nodes = Vec::with_capacity(n as usize);
        let mut edges = Vec::with_capacity(n as usize);
        for i in 0..i64::from(n) {
            nodes.push(node(i, NodeKind::Function, "f", "m.py", None));
            if i + 1 < i64::from(n) {
                edges.push(edge(i, i + 1, EdgeKind::Calls));
            }
        }
        let g = Graph::new(nodes, &edges);
        let r = reach(&g, &[0], &EdgeFilter::dependencies(), &|_| true, u32::MAX);
        assert_eq!(r.order.len(), n as usize);
        assert_eq!(r.depth[n as usize - 1], n - 1);
        assert_eq!(r.path_to(n - 1).len(), n as usize);
        let sccs = crate::algo::strongly_connected(&g, &EdgeFilter::dependencies(), &|_| true);
        assert!(sccs.is_empty());
    }
}
