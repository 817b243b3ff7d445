//! Strongly connected components (Tarjan, iterative).

use super::{EdgeFilter, NONE, Subgraph, collect_components};
use crate::{Graph, Ix};

/// Strongly connected components of a CSR graph (`start.len() == n + 1`, targets in `adj`):
/// returns the component of every node (numbered in the order Tarjan completes them, i.e.
/// reverse topological order of the condensation) and the number of components.
///
/// Iterative Tarjan: an explicit stack of (node, next edge) frames replaces recursion, so
/// arbitrarily long chains are fine. O(V + E) time, O(V) extra memory.
pub(crate) fn tarjan(start: &[u32], adj: &[u32]) -> (Vec<u32>, usize) {
    let n = start.len().saturating_sub(1);
    let mut index = vec![NONE; n];
    let mut low = vec![0u32; n];
    let mut on_stack = vec![false; n];
    let mut comp = vec![NONE; n];
    let mut stack: Vec<u32> = Vec::new();
    let mut frames: Vec<(u32, u32)> = Vec::new();
    let mut next_index = 0u32;
    let mut count = 0usize;
    for root in 0..n as u32 {
        if index[root as usize] != NONE {
            continue;
        }
        index[root as usize] = next_index;
        low[root as usize] = next_index;
        next_index += 1;
        stack.push(root);
        on_stack[root as usize] = true;
        frames.push((root, start[root as usize]));
        while let Some(frame) = frames.last_mut() {
            let v = frame.0;
            if frame.1 < start[v as usize + 1] {
                let w = adj[frame.1 as usize];
                frame.1 += 1;
                if index[w as usize] == NONE {
                    index[w as usize] = next_index;
                    low[w as usize] = next_index;
                    next_index += 1;
                    stack.push(w);
                    on_stack[w as usize] = true;
                    frames.push((w, start[w as usize]));
                } else if on_stack[w as usize] {
                    low[v as usize] = low[v as usize].min(index[w as usize]);
                }
                continue;
            }
            frames.pop();
            if let Some(&(parent, _)) = frames.last() {
                low[parent as usize] = low[parent as usize].min(low[v as usize]);
            }
            if low[v as usize] == index[v as usize] {
                loop {
                    let w = stack.pop().expect("v is on the stack");
                    on_stack[w as usize] = false;
                    comp[w as usize] = count as u32;
                    if w == v {
                        break;
                    }
                }
                count += 1;
            }
        }
    }
    (comp, count)
}

/// The non-trivial strongly connected components among included nodes over allowed edges:
/// components of more than one node, and single nodes with an allowed self-loop (direct
/// recursion). Each component is sorted by [`Ix`]; the list is ordered by size descending,
/// then by first member. Components are cycles of mutual dependency (e.g. mutually
/// recursive functions).
///
/// Iterative Tarjan, O(V + E) time and memory, no recursion (safe on 100k+ node chains).
/// Deterministic.
pub fn strongly_connected(
    g: &Graph,
    edges: &EdgeFilter,
    nodes: &dyn Fn(Ix) -> bool,
) -> Vec<Vec<Ix>> {
    let sub = Subgraph::build(g, edges, nodes);
    let (start, adj) = sub.csr();
    let (comp, count) = tarjan(start, adj);
    collect_components(
        &comp,
        count,
        |u| sub.global(u as u32),
        |u| sub.has_self_loop(u as u32),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{edge, node};
    use crate::{EdgeInput, EdgeKind, NodeKind};

    pub(crate) fn functions(n: i64, edges: &[(i64, i64)]) -> Graph {
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
    fn finds_cycle_and_self_loop_ignores_dag() {
        // 1 → 2 → 3 → 1 (cycle), 4 → 4 (self-loop), 5 → 6 → 7, 5 → 7 (DAG), 3 → 5.
        let g = functions(
            7,
            &[
                (1, 2),
                (2, 3),
                (3, 1),
                (4, 4),
                (5, 6),
                (6, 7),
                (5, 7),
                (3, 5),
            ],
        );
        let all = |_: Ix| true;
        let sccs = strongly_connected(&g, &EdgeFilter::dependencies(), &all);
        assert_eq!(sccs, vec![vec![1, 2, 3], vec![4]]);
        // With `contains` the file and its functions do not form a cycle (one direction only).
        let sccs = strongly_connected(&g, &EdgeFilter::all(), &all);
        assert_eq!(sccs, vec![vec![1, 2, 3], vec![4]]);
        // Only a DAG.
        let dag = functions(4, &[(1, 2), (2, 3), (1, 3), (3, 4)]);
        assert!(strongly_connected(&dag, &EdgeFilter::dependencies(), &all).is_empty());
        // Excluding a node breaks its cycle.
        let sccs = strongly_connected(&g, &EdgeFilter::dependencies(), &|ix| ix != 2);
        assert_eq!(sccs, vec![vec![4]]);
    }

    #[test]
    fn orders_by_size_then_first_member() {
        let g = functions(7, &[(6, 7), (7, 6), (1, 2), (2, 1), (3, 4), (4, 5), (5, 3)]);
        let sccs = strongly_connected(&g, &EdgeFilter::dependencies(), &|_| true);
        assert_eq!(sccs, vec![vec![3, 4, 5], vec![1, 2], vec![6, 7]]);
    }

    #[test]
    fn long_chain_does_not_overflow() {
        let n = 200_000u32;
        // CSR directly (building a 200k-node Graph is slow in debug): a chain closed into one
        // cycle, and the same chain open.
        let start: Vec<u32> = (0..=n).collect();
        let mut adj: Vec<u32> = (1..=n).collect();
        adj[n as usize - 1] = 0;
        let (comp, count) = tarjan(&start, &adj);
        assert_eq!(count, 1);
        assert!(comp.iter().all(|&c| c == 0));
        let mut open_start: Vec<u32> = (0..n).collect();
        open_start.push(n - 1);
        let (_, count) = tarjan(&open_start, &adj[..n as usize - 1]);
        assert_eq!(count, n as usize);
    }
}
