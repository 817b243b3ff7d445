//! PageRank by power iteration.

use super::{EdgeFilter, Subgraph};
use crate::{Graph, Ix};

/// Options of [`pagerank`].
#[derive(Debug, Clone, PartialEq)]
pub struct PageRankOptions {
    /// Probability of following an edge rather than jumping to a random node (clamped to
    /// `0..=1`). Default 0.85.
    pub damping: f64,
    /// Upper bound on power iterations. Default 100.
    pub max_iterations: u32,
    /// Convergence threshold on the L1 distance between successive score vectors.
    /// Default 1e-9.
    pub tolerance: f64,
}

impl Default for PageRankOptions {
    fn default() -> Self {
        PageRankOptions {
            damping: 0.85,
            max_iterations: 100,
            tolerance: 1e-9,
        }
    }
}

/// Result of [`pagerank`].
#[derive(Debug, Clone, PartialEq)]
pub struct PageRank {
    /// Score per [`Ix`]; 0 for excluded nodes; the included nodes' scores sum to 1 (when any
    /// node is included).
    pub scores: Vec<f64>,
    /// Power iterations run.
    pub iterations: u32,
    /// Whether the L1 change of the last iteration fell below the tolerance.
    pub converged: bool,
}

/// PageRank over the included nodes and allowed edges: a random surfer follows an out-edge with
/// probability `damping` and otherwise jumps to a uniformly chosen included node.
///
/// * Edge weights: an edge `u → v` is followed with probability proportional to the summed
///   `count` of its allowed kinds (three call sites weigh three times one), so the scores
///   reflect how often a node is used, not only by how many. Self-loops (recursion) are
///   ignored: a node does not vote for itself.
/// * Dangling nodes (no allowed out-edge to an included node) spread their score uniformly
///   over all included nodes, so no mass is lost and the scores sum to 1.
/// * Scores are renormalised to sum exactly to 1 at the end (removing rounding drift).
///
/// O((V + E) · iterations) time, O(V + E) memory. Deterministic: fixed iteration order over the
/// sorted CSR.
pub fn pagerank(
    g: &Graph,
    edges: &EdgeFilter,
    nodes: &dyn Fn(Ix) -> bool,
    opts: &PageRankOptions,
) -> PageRank {
    let sub = Subgraph::build(g, edges, nodes);
    pagerank_sub(&sub, opts)
}

fn pagerank_sub(sub: &Subgraph, opts: &PageRankOptions) -> PageRank {
    let n = sub.len();
    if n == 0 {
        return PageRank {
            scores: vec![0.0; sub.graph_len()],
            iterations: 0,
            converged: true,
        };
    }
    let damping = if opts.damping.is_nan() {
        0.85
    } else {
        opts.damping.clamp(0.0, 1.0)
    };
    let nf = n as f64;
    // The probability of following each edge from its source: its weight over the source's
    // out-weight, self-loops excluded (integer sums, exact).
    let (start, adj) = sub.csr();
    let weight = sub.all_weights();
    let mut follow = vec![0.0f64; adj.len()];
    let mut dangling: Vec<u32> = Vec::new();
    for u in 0..n {
        let (lo, hi) = (start[u] as usize, start[u + 1] as usize);
        let out: u64 = (lo..hi)
            .filter(|&e| adj[e] as usize != u)
            .map(|e| weight[e])
            .sum();
        if out == 0 {
            dangling.push(u as u32);
            continue;
        }
        for e in lo..hi {
            if adj[e] as usize != u {
                follow[e] = weight[e] as f64 / out as f64;
            }
        }
    }
    let mut rank = vec![1.0 / nf; n];
    let mut next = vec![0.0f64; n];
    let mut iterations = 0;
    let mut converged = false;
    while iterations < opts.max_iterations {
        iterations += 1;
        let dangling_mass: f64 = dangling.iter().map(|&u| rank[u as usize]).sum();
        let base = (1.0 - damping) / nf + damping * dangling_mass / nf;
        next.fill(base);
        for u in 0..n {
            let share = damping * rank[u];
            for e in start[u] as usize..start[u + 1] as usize {
                next[adj[e] as usize] += share * follow[e];
            }
        }
        let delta: f64 = rank.iter().zip(&next).map(|(a, b)| (a - b).abs()).sum();
        std::mem::swap(&mut rank, &mut next);
        if delta < opts.tolerance {
            converged = true;
            break;
        }
    }
    let total: f64 = rank.iter().sum();
    if total > 0.0 {
        for r in &mut rank {
            *r /= total;
        }
    }
    PageRank {
        scores: sub.scatter(&rank, 0.0),
        iterations,
        converged,
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

    fn not_file(g: &Graph) -> impl Fn(Ix) -> bool + '_ {
        |ix| g.node(ix).kind != NodeKind::File
    }

    #[test]
    fn cycle_is_uniform() {
        let g = functions(4, &[(1, 2), (2, 3), (3, 4), (4, 1)]);
        let pr = pagerank(
            &g,
            &EdgeFilter::dependencies(),
            &not_file(&g),
            &Default::default(),
        );
        assert!(pr.converged);
        assert_eq!(pr.scores[0], 0.0, "the file is excluded");
        for ix in 1..=4 {
            assert!((pr.scores[ix] - 0.25).abs() < 1e-12, "{:?}", pr.scores);
        }
    }

    #[test]
    fn star_centre_ranks_highest_and_dangling_mass_is_kept() {
        // Leaves 2..=6 call the centre 1, which calls nothing (dangling).
        let g = functions(6, &[(2, 1), (3, 1), (4, 1), (5, 1), (6, 1)]);
        let pr = pagerank(
            &g,
            &EdgeFilter::dependencies(),
            &not_file(&g),
            &Default::default(),
        );
        assert!(pr.converged);
        let sum: f64 = pr.scores.iter().sum();
        assert!((sum - 1.0).abs() < 1e-12);
        for leaf in 2..=6 {
            assert!(pr.scores[1] > 3.0 * pr.scores[leaf]);
            assert!((pr.scores[leaf] - pr.scores[2]).abs() < 1e-15);
        }
        // Closed form: leaves get l, centre c = 1 - 5l with l = (1-d)/6 + d*c/6.
        let d = 0.85;
        let l = (1.0 - d + d) / (6.0 + 5.0 * d);
        assert!((pr.scores[2] - l).abs() < 1e-9, "{} vs {l}", pr.scores[2]);
    }

    #[test]
    fn sums_to_one_for_any_damping_and_counts_weigh() {
        // 1 calls 2 three times and 3 once; 4 is isolated; 3 → 3 is a self-loop.
        let g = functions(4, &[(1, 2), (1, 2), (1, 2), (1, 3), (3, 3), (2, 1)]);
        for damping in [0.0, 0.5, 0.85, 1.0] {
            let opts = PageRankOptions {
                damping,
                ..Default::default()
            };
            let pr = pagerank(&g, &EdgeFilter::dependencies(), &not_file(&g), &opts);
            let sum: f64 = pr.scores.iter().sum();
            assert!((sum - 1.0).abs() < 1e-12, "damping {damping}: {sum}");
            if damping == 0.0 {
                assert!((pr.scores[1] - 0.25).abs() < 1e-12);
            } else {
                assert!(pr.scores[2] > pr.scores[3], "weighted by count");
            }
        }
    }

    #[test]
    fn empty_and_filtered_out() {
        let g = functions(2, &[(1, 2)]);
        let pr = pagerank(
            &g,
            &EdgeFilter::dependencies(),
            &|_| false,
            &Default::default(),
        );
        assert_eq!(pr.scores, vec![0.0; 3]);
        // Only contains edges allowed: functions are all dangling, so uniform.
        let pr = pagerank(
            &g,
            &EdgeFilter::new(&[EdgeKind::Contains]),
            &not_file(&g),
            &Default::default(),
        );
        assert!((pr.scores[1] - 0.5).abs() < 1e-12);
        let no_iter = PageRankOptions {
            max_iterations: 0,
            ..Default::default()
        };
        let pr = pagerank(&g, &EdgeFilter::dependencies(), &not_file(&g), &no_iter);
        assert_eq!((pr.iterations, pr.converged), (0, false));
    }
}
