//! Betweenness centrality (Brandes), exact or from a seeded sample of sources.

use super::{EdgeFilter, NONE, SplitMix64, Subgraph};
use crate::{Graph, Ix};

/// Options of [`betweenness`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BetweennessOptions {
    /// The most BFS sources to run; with more included nodes than this, a sample of this many
    /// sources is used. Default 512.
    pub max_sources: usize,
    /// Seed of the source sample. Default 0.
    pub seed: u64,
}

impl Default for BetweennessOptions {
    fn default() -> Self {
        BetweennessOptions {
            max_sources: 512,
            seed: 0,
        }
    }
}

/// Result of [`betweenness`].
#[derive(Debug, Clone, PartialEq)]
pub struct Betweenness {
    /// Score per [`Ix`] (0 for excluded nodes): the number of shortest directed paths between
    /// ordered pairs of other included nodes passing through the node, each pair's paths
    /// sharing one unit (not normalised). Estimated when `exact` is false.
    pub scores: Vec<f64>,
    /// BFS sources run.
    pub sources: usize,
    /// Whether every included node was a source (scores exact).
    pub exact: bool,
}

/// Brandes' betweenness centrality on the directed, unweighted graph of included nodes and
/// allowed edges (edge counts and kinds do not matter; several kinds between one pair are one
/// edge).
///
/// Exact when the number of included nodes `n` is at most `max_sources`. Otherwise `k =
/// max_sources` distinct sources are drawn with a seeded SplitMix64 (partial Fisher–Yates)
/// and the accumulated dependencies are scaled by `n / k`, an unbiased estimate (Brandes &
/// Pich 2007). With `max_sources == 0` nothing is run and every score is 0.
///
/// O(k · (V + E)) time, O(V + E) memory; no per-source allocation. Deterministic for a seed:
/// sources are processed in ascending order and adjacency is sorted.
pub fn betweenness(
    g: &Graph,
    edges: &EdgeFilter,
    nodes: &dyn Fn(Ix) -> bool,
    opts: &BetweennessOptions,
) -> Betweenness {
    let sub = Subgraph::build(g, edges, nodes);
    let n = sub.len();
    let exact = n <= opts.max_sources;
    let sources: Vec<u32> = if exact {
        (0..n as u32).collect()
    } else {
        let mut all: Vec<u32> = (0..n as u32).collect();
        let mut rng = SplitMix64::new(opts.seed);
        let k = opts.max_sources;
        for i in 0..k {
            let j = i + rng.below(n - i);
            all.swap(i, j);
        }
        all.truncate(k);
        all.sort_unstable();
        all
    };
    let mut score = vec![0.0f64; n];
    let mut sigma = vec![0.0f64; n];
    // (1 + delta(w)) / sigma(w) once w's dependency is final.
    let mut coef = vec![0.0f64; n];
    let mut dist = vec![NONE; n];
    let mut order: Vec<u32> = Vec::with_capacity(n);
    // The shortest-path DAG: successors of order[i] are dag[dag_end[i-1]..dag_end[i]].
    let mut dag: Vec<u32> = Vec::with_capacity(sub.edge_count());
    let mut dag_end: Vec<u32> = Vec::with_capacity(n);
    for &s in &sources {
        order.clear();
        dag.clear();
        dag_end.clear();
        sigma[s as usize] = 1.0;
        dist[s as usize] = 0;
        order.push(s);
        let mut head = 0;
        while head < order.len() {
            let v = order[head];
            head += 1;
            let dv = dist[v as usize];
            let sv = sigma[v as usize];
            for &w in sub.targets(v) {
                let dw = &mut dist[w as usize];
                if *dw == NONE {
                    *dw = dv + 1;
                    order.push(w);
                }
                if *dw == dv + 1 {
                    sigma[w as usize] += sv;
                    dag.push(w);
                }
            }
            dag_end.push(dag.len() as u32);
        }
        // Dependencies in reverse BFS order (Brandes), summed over DAG successors:
        // delta(v) = sigma(v) * sum_{w} (1 + delta(w)) / sigma(w).
        for i in (0..order.len()).rev() {
            let v = order[i] as usize;
            let lo = if i == 0 { 0 } else { dag_end[i - 1] as usize };
            let hi = dag_end[i] as usize;
            let mut acc = 0.0;
            for &w in &dag[lo..hi] {
                acc += coef[w as usize];
            }
            let delta = sigma[v] * acc;
            coef[v] = (1.0 + delta) / sigma[v];
            // order[0] is the source: its own dependency is not betweenness.
            if i > 0 {
                score[v] += delta;
            }
        }
        for &v in &order {
            sigma[v as usize] = 0.0;
            dist[v as usize] = NONE;
        }
    }
    if !exact && !sources.is_empty() {
        let scale = n as f64 / sources.len() as f64;
        for x in &mut score {
            *x *= scale;
        }
    }
    Betweenness {
        scores: sub.scatter(&score, 0.0),
        sources: sources.len(),
        exact,
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
    fn path_graph_exact_values() {
        // 1 → 2 → 3 → 4 → 5 (the call 2 → 3 also referenced: still one edge).
        let mut edges = vec![(1, 2), (2, 3), (3, 4), (4, 5)];
        edges.push((2, 3));
        let g = functions(5, &edges);
        let b = betweenness(
            &g,
            &EdgeFilter::dependencies(),
            &not_file(&g),
            &Default::default(),
        );
        assert!(b.exact);
        assert_eq!(b.sources, 5);
        assert_eq!(b.scores, vec![0.0, 0.0, 3.0, 4.0, 3.0, 0.0]);
    }

    #[test]
    fn split_paths_share_the_pair() {
        // 1 → {2, 3} → 4: each middle node carries half of the pair (1, 4).
        let g = functions(4, &[(1, 2), (1, 3), (2, 4), (3, 4)]);
        let b = betweenness(
            &g,
            &EdgeFilter::dependencies(),
            &not_file(&g),
            &Default::default(),
        );
        assert_eq!(b.scores, vec![0.0, 0.0, 0.5, 0.5, 0.0]);
    }

    #[test]
    fn excluded_nodes_cut_paths() {
        let g = functions(3, &[(1, 2), (2, 3)]);
        let b = betweenness(
            &g,
            &EdgeFilter::dependencies(),
            &|ix| ix != 2,
            &Default::default(),
        );
        assert_eq!(b.scores, vec![0.0; 4]);
    }

    #[test]
    fn sampled_mode_reports_sources() {
        let edges: Vec<(i64, i64)> = (1..40).map(|i| (i, i + 1)).collect();
        let g = functions(40, &edges);
        let opts = BetweennessOptions {
            max_sources: 10,
            seed: 42,
        };
        let b = betweenness(&g, &EdgeFilter::dependencies(), &not_file(&g), &opts);
        assert!(!b.exact);
        assert_eq!(b.sources, 10);
        let again = betweenness(&g, &EdgeFilter::dependencies(), &not_file(&g), &opts);
        assert_eq!(b, again);
        // The middle of the path must still be central and the ends zero.
        assert!(b.scores[20] > 0.0);
        assert_eq!(b.scores[40], 0.0);
        let none = betweenness(
            &g,
            &EdgeFilter::dependencies(),
            &not_file(&g),
            &BetweennessOptions {
                max_sources: 0,
                seed: 0,
            },
        );
        assert_eq!((none.sources, none.exact), (0, false));
        assert!(none.scores.iter().all(|&x| x == 0.0));
    }
}
