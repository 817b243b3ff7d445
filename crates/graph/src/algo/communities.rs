//! Community detection: Leiden (default) or Louvain, multi-level, on the undirected weighted
//! projection.

use std::collections::VecDeque;

use super::{EdgeFilter, NONE, SplitMix64, Subgraph};
use crate::{Graph, Ix};

/// Which modularity optimiser [`communities`] runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CommunityMethod {
    /// Leiden (Traag, Waltman & van Eck 2019) with a greedy refinement: communities are
    /// aggregated only through well-connected, connected sub-communities.
    #[default]
    Leiden,
    /// Louvain (Blondel et al. 2008), each level's communities split into their connected
    /// parts before aggregation.
    Louvain,
}

/// Options of [`communities`].
#[derive(Debug, Clone, PartialEq)]
pub struct CommunityOptions {
    /// Resolution γ of the modularity: above 1 favours more, smaller communities; below 1
    /// fewer, larger ones. Default 1.0.
    pub resolution: f64,
    /// The most aggregation levels (local moving + aggregation rounds). Default 10.
    pub max_levels: u32,
    /// Seed of the node visiting orders. Default 0.
    pub seed: u64,
    /// The optimiser. Default [`CommunityMethod::Leiden`].
    pub method: CommunityMethod,
}

impl Default for CommunityOptions {
    fn default() -> Self {
        CommunityOptions {
            resolution: 1.0,
            max_levels: 10,
            seed: 0,
            method: CommunityMethod::default(),
        }
    }
}

/// Result of [`communities`].
#[derive(Debug, Clone, PartialEq)]
pub struct Communities {
    /// Community per [`Ix`], `u32::MAX` for excluded nodes. Community 0 is the largest; ties
    /// are broken by the smallest member [`Ix`].
    pub membership: Vec<u32>,
    /// Number of communities (isolated included nodes are singleton communities).
    pub count: usize,
    /// Modularity of the partition at the given resolution on the undirected weighted
    /// projection (0 when there are no edges).
    pub modularity: f64,
    /// Aggregation levels run.
    pub levels: u32,
}

/// Communities of the included nodes by modularity maximisation on the undirected weighted
/// projection of the allowed edges: the weight between two nodes is the summed `count` of the
/// allowed edges between them in both directions; self-loops are ignored.
///
/// Every level first moves nodes between neighbouring communities (or into an empty one)
/// while modularity strictly improves, visiting nodes from a queue filled in a shuffled order
/// and re-queueing the neighbours of moved nodes (Leiden's fast local move). Then:
///
/// * [`CommunityMethod::Leiden`] refines each community: starting from singletons inside it,
///   each well-connected singleton node joins the well-connected sub-community with the
///   largest positive gain (greedy; Leiden's randomised choice with θ → 0, which is what
///   weight-scaled gains make it in practice). The graph is aggregated by sub-community and
///   the next level starts from the unrefined communities. When refinement merges nothing the
///   communities themselves are aggregated. The loop ends when every community is one node.
/// * [`CommunityMethod::Louvain`] splits every community into its connected parts (Louvain can
///   disconnect one when a bridge node moves away; splitting only raises modularity) and
///   aggregates them.
///
/// Finally every community is split into its connected parts (a no-op unless `max_levels`
/// cut the loop short), so communities are always connected.
///
/// Roughly O(E) per level, a handful of levels in practice. Deterministic for a seed: the
/// shuffles come from SplitMix64, weights are integer sums (exact in f64), ties keep the
/// current community, else the first candidate met in sorted adjacency order.
pub fn communities(
    g: &Graph,
    edges: &EdgeFilter,
    nodes: &dyn Fn(Ix) -> bool,
    opts: &CommunityOptions,
) -> Communities {
    let sub = Subgraph::build(g, edges, nodes);
    let n = sub.len();
    let base = Level::from_sub(&sub);
    let m2: f64 = base.k.iter().sum();
    let gamma = opts.resolution;
    // Base node → node of the current level, and the partition of the current level.
    let mut node_of: Vec<u32> = (0..n as u32).collect();
    let mut part: Vec<u32> = (0..n as u32).collect();
    let mut levels = 0;
    if m2 > 0.0 {
        let mut rng = SplitMix64::new(opts.seed);
        let mut aggregated: Option<Level> = None;
        for _ in 0..opts.max_levels {
            let cur = aggregated.as_ref().unwrap_or(&base);
            local_move(cur, m2, gamma, &mut rng, &mut part);
            let count;
            (part, count) = match opts.method {
                CommunityMethod::Leiden => renumber(&part),
                CommunityMethod::Louvain => split_connected(cur, &part),
            };
            if count == cur.len() {
                break;
            }
            levels += 1;
            let (by, by_count, next_part) = match opts.method {
                CommunityMethod::Louvain => (part.clone(), count, (0..count as u32).collect()),
                CommunityMethod::Leiden => {
                    let (refined, refined_count) = refine(cur, &part, count, m2, gamma, &mut rng);
                    if refined_count == cur.len() {
                        (part.clone(), count, (0..count as u32).collect())
                    } else {
                        let mut next = vec![0u32; refined_count];
                        for (i, &r) in refined.iter().enumerate() {
                            next[r as usize] = part[i];
                        }
                        (refined, refined_count, next)
                    }
                }
            };
            for x in &mut node_of {
                *x = by[*x as usize];
            }
            aggregated = Some(cur.aggregate(&by, by_count));
            part = next_part;
        }
    }
    let membership: Vec<u32> = node_of.iter().map(|&x| part[x as usize]).collect();
    let (membership, _) = split_connected(&base, &membership);
    let (membership, count) = order_by_size(&membership);
    let modularity = if m2 > 0.0 {
        modularity(&base, &membership, count, m2, gamma)
    } else {
        0.0
    };
    Communities {
        membership: sub.scatter(&membership, NONE),
        count,
        modularity,
        levels,
    }
}

/// An undirected weighted graph: symmetric adjacency without self-loops (their weight is in
/// `loops`, counted as Σ_{i,j ∈ node} A_ij), and the weighted degree of every node.
#[derive(Debug, Clone)]
struct Level {
    start: Vec<u32>,
    adj: Vec<(u32, f64)>,
    loops: Vec<f64>,
    k: Vec<f64>,
}

impl Level {
    fn len(&self) -> usize {
        self.k.len()
    }

    #[inline]
    fn neighbours(&self, i: u32) -> &[(u32, f64)] {
        &self.adj[self.start[i as usize] as usize..self.start[i as usize + 1] as usize]
    }

    /// The symmetric projection of a directed subgraph (self-loops dropped).
    fn from_sub(sub: &Subgraph) -> Level {
        let n = sub.len();
        let (start, adj) = symmetric_csr(n, |emit| {
            for u in 0..n as u32 {
                for (&v, &w) in sub.targets(u).iter().zip(sub.weights(u)) {
                    if v != u {
                        emit(u, v, w as f64);
                        emit(v, u, w as f64);
                    }
                }
            }
        });
        Level::with_degrees(start, adj, vec![0.0; n])
    }

    fn with_degrees(start: Vec<u32>, adj: Vec<(u32, f64)>, loops: Vec<f64>) -> Level {
        let k = (0..loops.len())
            .map(|i| {
                loops[i]
                    + adj[start[i] as usize..start[i + 1] as usize]
                        .iter()
                        .map(|&(_, w)| w)
                        .sum::<f64>()
            })
            .collect();
        Level {
            start,
            adj,
            loops,
            k,
        }
    }

    /// One node per community (`comm[i]` in `0..count`).
    fn aggregate(&self, comm: &[u32], count: usize) -> Level {
        let mut loops = vec![0.0f64; count];
        for i in 0..self.len() as u32 {
            let c = comm[i as usize];
            loops[c as usize] += self.loops[i as usize];
            for &(j, w) in self.neighbours(i) {
                if comm[j as usize] == c {
                    loops[c as usize] += w;
                }
            }
        }
        let (start, adj) = symmetric_csr(count, |emit| {
            for i in 0..self.len() as u32 {
                let c = comm[i as usize];
                for &(j, w) in self.neighbours(i) {
                    let d = comm[j as usize];
                    if d != c {
                        emit(c, d, w);
                    }
                }
            }
        });
        Level::with_degrees(start, adj, loops)
    }
}

/// Builds a CSR from the entries `fill` emits (called twice: once to count, once to place),
/// each node's entries sorted by target with equal targets summed.
fn symmetric_csr(
    n: usize,
    fill: impl Fn(&mut dyn FnMut(u32, u32, f64)),
) -> (Vec<u32>, Vec<(u32, f64)>) {
    let mut start = vec![0u32; n + 1];
    fill(&mut |a, _, _| start[a as usize + 1] += 1);
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut cursor: Vec<u32> = start[..n].to_vec();
    let mut entries = vec![(0u32, 0.0f64); start[n] as usize];
    fill(&mut |a, b, w| {
        let c = &mut cursor[a as usize];
        entries[*c as usize] = (b, w);
        *c += 1;
    });
    let mut out_start = vec![0u32; n + 1];
    let mut write = 0usize;
    for i in 0..n {
        let (lo, hi) = (start[i] as usize, start[i + 1] as usize);
        entries[lo..hi].sort_by_key(|e| e.0);
        let first = write;
        for r in lo..hi {
            let (b, w) = entries[r];
            if write > first && entries[write - 1].0 == b {
                entries[write - 1].1 += w;
            } else {
                entries[write] = (b, w);
                write += 1;
            }
        }
        out_start[i + 1] = write as u32;
    }
    entries.truncate(write);
    (out_start, entries)
}

/// Local moving on `level`, starting from the partition `comm` (ids below `level.len()`):
/// until no node can strictly improve modularity by moving to a neighbouring or an empty
/// community.
fn local_move(level: &Level, m2: f64, gamma: f64, rng: &mut SplitMix64, comm: &mut [u32]) {
    let n = level.len();
    let mut tot = vec![0.0f64; n];
    let mut size = vec![0u32; n];
    for i in 0..n {
        tot[comm[i] as usize] += level.k[i];
        size[comm[i] as usize] += 1;
    }
    let mut empty: Vec<u32> = (0..n as u32).filter(|&c| size[c as usize] == 0).collect();
    let mut order: Vec<u32> = (0..n as u32).collect();
    rng.shuffle(&mut order);
    let mut queue: VecDeque<u32> = order.into();
    let mut queued = vec![true; n];
    let mut to_comm = vec![0.0f64; n];
    let mut touched: Vec<u32> = Vec::new();
    while let Some(i) = queue.pop_front() {
        queued[i as usize] = false;
        let ci = comm[i as usize];
        let ki = level.k[i as usize];
        for &(j, w) in level.neighbours(i) {
            let c = comm[j as usize];
            if to_comm[c as usize] == 0.0 {
                touched.push(c);
            }
            to_comm[c as usize] += w;
        }
        tot[ci as usize] -= ki;
        // Gain of joining c, up to a positive factor: k_i,c − γ·Σ_tot(c)·k_i / 2m.
        let scale = gamma * ki / m2;
        let stay = to_comm[ci as usize] - tot[ci as usize] * scale;
        let mut best = ci;
        let mut best_gain = f64::NEG_INFINITY;
        for &c in &touched {
            if c != ci {
                let gain = to_comm[c as usize] - tot[c as usize] * scale;
                if gain > best_gain {
                    best = c;
                    best_gain = gain;
                }
            }
        }
        // Move only on a strict improvement (beyond rounding); ties keep the current community.
        let eps = 1e-12 * ki.max(1.0);
        let mut target = ci;
        let mut target_gain = stay;
        if best != ci && best_gain > target_gain + eps {
            target = best;
            target_gain = best_gain;
        }
        // An empty community has gain 0 (staying alone already means gain 0).
        if size[ci as usize] > 1
            && 0.0 > target_gain + eps
            && let Some(e) = empty.pop()
        {
            target = e;
        }
        for &c in &touched {
            to_comm[c as usize] = 0.0;
        }
        touched.clear();
        tot[target as usize] += ki;
        if target != ci {
            size[ci as usize] -= 1;
            if size[ci as usize] == 0 {
                empty.push(ci);
            }
            size[target as usize] += 1;
            comm[i as usize] = target;
            for &(j, _) in level.neighbours(i) {
                if !queued[j as usize] && comm[j as usize] != target {
                    queued[j as usize] = true;
                    queue.push_back(j);
                }
            }
        }
    }
}

/// Leiden's refinement of the partition `part` (`count` communities) of `level`: inside each
/// community S, from singletons, every node v that is still alone and well connected to S
/// (w(v, S − v) ≥ γ·k_v·(K_S − k_v)/2m), visited in a shuffled order, joins the sub-community
/// C of S that is well connected to S (w(C, S − C) ≥ γ·K_C·(K_S − K_C)/2m) with the largest
/// strictly positive modularity gain, if any. Sub-communities are therefore connected and
/// each lies inside one community. Returns them numbered densely by smallest member.
fn refine(
    level: &Level,
    part: &[u32],
    count: usize,
    m2: f64,
    gamma: f64,
    rng: &mut SplitMix64,
) -> (Vec<u32>, usize) {
    let n = level.len();
    let mut tot_part = vec![0.0f64; count];
    for i in 0..n {
        tot_part[part[i] as usize] += level.k[i];
    }
    // Weight from each node to the other nodes of its community.
    let ext_node: Vec<f64> = (0..n as u32)
        .map(|i| {
            let p = part[i as usize];
            level
                .neighbours(i)
                .iter()
                .filter(|&&(j, _)| part[j as usize] == p)
                .map(|&(_, w)| w)
                .sum()
        })
        .collect();
    // Sub-communities, named by a founding node: total degree, size, and weight to the rest of
    // their community.
    let mut sub: Vec<u32> = (0..n as u32).collect();
    let mut tot = level.k.clone();
    let mut size = vec![1u32; n];
    let mut ext = ext_node.clone();
    let mut order: Vec<u32> = (0..n as u32).collect();
    rng.shuffle(&mut order);
    let mut to_sub = vec![0.0f64; n];
    let mut touched: Vec<u32> = Vec::new();
    for &v in &order {
        let vi = v as usize;
        if size[sub[vi] as usize] != 1 {
            continue;
        }
        let s = part[vi] as usize;
        let kv = level.k[vi];
        let scale = gamma / m2;
        if ext_node[vi] < scale * kv * (tot_part[s] - kv) {
            continue;
        }
        for &(j, w) in level.neighbours(v) {
            if part[j as usize] as usize == s {
                let c = sub[j as usize];
                if to_sub[c as usize] == 0.0 {
                    touched.push(c);
                }
                to_sub[c as usize] += w;
            }
        }
        let eps = 1e-12 * kv.max(1.0);
        let mut best = NONE;
        let mut best_gain = eps;
        for &c in &touched {
            let ci = c as usize;
            if c == sub[vi] || ext[ci] < scale * tot[ci] * (tot_part[s] - tot[ci]) {
                continue;
            }
            let gain = to_sub[ci] - scale * tot[ci] * kv;
            if gain > best_gain {
                best = c;
                best_gain = gain;
            }
        }
        if best != NONE {
            let b = best as usize;
            ext[b] += ext_node[vi] - 2.0 * to_sub[b];
            tot[b] += kv;
            size[b] += 1;
            size[sub[vi] as usize] = 0;
            sub[vi] = best;
        }
        for &c in &touched {
            to_sub[c as usize] = 0.0;
        }
        touched.clear();
    }
    renumber(&sub)
}

/// Renumbers ids (each below `ids.len()`) densely in order of first appearance.
fn renumber(ids: &[u32]) -> (Vec<u32>, usize) {
    let mut map = vec![NONE; ids.len()];
    let mut count = 0u32;
    let out = ids
        .iter()
        .map(|&c| {
            let m = &mut map[c as usize];
            if *m == NONE {
                *m = count;
                count += 1;
            }
            *m
        })
        .collect();
    (out, count as usize)
}

/// Renumbers communities densely by smallest member, splitting each into its connected parts.
fn split_connected(level: &Level, comm: &[u32]) -> (Vec<u32>, usize) {
    let n = level.len();
    let mut out = vec![NONE; n];
    let mut count = 0u32;
    let mut stack: Vec<u32> = Vec::new();
    for s in 0..n as u32 {
        if out[s as usize] != NONE {
            continue;
        }
        out[s as usize] = count;
        stack.push(s);
        while let Some(i) = stack.pop() {
            let c = comm[i as usize];
            for &(j, _) in level.neighbours(i) {
                if out[j as usize] == NONE && comm[j as usize] == c {
                    out[j as usize] = count;
                    stack.push(j);
                }
            }
        }
        count += 1;
    }
    (out, count as usize)
}

/// Renumbers communities by size descending, then smallest member.
fn order_by_size(membership: &[u32]) -> (Vec<u32>, usize) {
    let count = membership
        .iter()
        .map(|&c| c as usize + 1)
        .max()
        .unwrap_or(0);
    let mut size = vec![0u32; count];
    let mut first = vec![NONE; count];
    for (i, &c) in membership.iter().enumerate() {
        size[c as usize] += 1;
        if first[c as usize] == NONE {
            first[c as usize] = i as u32;
        }
    }
    let mut ids: Vec<u32> = (0..count as u32)
        .filter(|&c| size[c as usize] > 0)
        .collect();
    ids.sort_by_key(|&c| (std::cmp::Reverse(size[c as usize]), first[c as usize]));
    let mut rank = vec![NONE; count];
    for (r, &c) in ids.iter().enumerate() {
        rank[c as usize] = r as u32;
    }
    (
        membership.iter().map(|&c| rank[c as usize]).collect(),
        ids.len(),
    )
}

/// Q = Σ_c [ in_c / 2m − γ (tot_c / 2m)² ] on the base level.
fn modularity(base: &Level, membership: &[u32], count: usize, m2: f64, gamma: f64) -> f64 {
    let mut inside = vec![0.0f64; count];
    let mut tot = vec![0.0f64; count];
    for i in 0..base.len() as u32 {
        let c = membership[i as usize] as usize;
        tot[c] += base.k[i as usize];
        inside[c] += base.loops[i as usize];
        for &(j, w) in base.neighbours(i) {
            if membership[j as usize] as usize == c {
                inside[c] += w;
            }
        }
    }
    inside
        .iter()
        .zip(&tot)
        .map(|(&a, &t)| a / m2 - gamma * (t / m2) * (t / m2))
        .sum()
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

    const METHODS: [CommunityMethod; 2] = [CommunityMethod::Leiden, CommunityMethod::Louvain];

    fn clique(members: &[i64], out: &mut Vec<(i64, i64)>) {
        for (x, &a) in members.iter().enumerate() {
            for &b in &members[x + 1..] {
                out.push((a, b));
            }
        }
    }

    #[test]
    fn two_cliques_joined_by_one_edge() {
        // Cliques {1..5} and {6..10}, bridge 5 → 6; 11 isolated; the file is excluded.
        let mut edges = Vec::new();
        clique(&[1, 2, 3, 4, 5], &mut edges);
        clique(&[6, 7, 8, 9, 10], &mut edges);
        edges.push((5, 6));
        let g = functions(11, &edges);
        let not_file = |ix: Ix| g.node(ix).kind != NodeKind::File;
        for (seed, method) in (0..5).flat_map(|s| METHODS.map(|m| (s, m))) {
            let opts = CommunityOptions {
                seed,
                method,
                ..Default::default()
            };
            let c = communities(&g, &EdgeFilter::dependencies(), &not_file, &opts);
            assert_eq!(
                c.membership,
                vec![NONE, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2],
                "seed {seed} {method:?}"
            );
            assert_eq!(c.count, 3);
            // 21 edges, 2m = 42: each clique has in = 20, tot = 21.
            let expected = 2.0 * (20.0 / 42.0 - (21.0f64 / 42.0).powi(2));
            assert!((c.modularity - expected).abs() < 1e-12, "{}", c.modularity);
            assert!(c.modularity > 0.3);
            assert!(c.levels >= 1);
        }
    }

    #[test]
    fn ring_of_cliques_and_determinism() {
        // Eight 4-cliques in a ring: each clique is a community.
        let mut edges = Vec::new();
        for q in 0..8i64 {
            let m: Vec<i64> = (1..=4).map(|i| q * 4 + i).collect();
            clique(&m, &mut edges);
            edges.push((q * 4 + 4, ((q + 1) % 8) * 4 + 1));
        }
        let g = functions(32, &edges);
        let all = |ix: Ix| ix != 0;
        for method in METHODS {
            let opts = CommunityOptions {
                method,
                ..Default::default()
            };
            let a = communities(&g, &EdgeFilter::dependencies(), &all, &opts);
            assert_eq!(a.count, 8, "{method:?}");
            for q in 0..8usize {
                let c = a.membership[q * 4 + 1];
                assert_eq!(c as usize, q, "ordered by size then first member");
                assert!((2..=4).all(|i| a.membership[q * 4 + i] == c));
            }
            let b = communities(&g, &EdgeFilter::dependencies(), &all, &opts);
            assert_eq!(a.membership, b.membership);
            assert_eq!(a.modularity.to_bits(), b.modularity.to_bits());
        }
        // A low resolution merges everything into fewer communities.
        let coarse = communities(
            &g,
            &EdgeFilter::dependencies(),
            &all,
            &CommunityOptions {
                resolution: 0.05,
                ..Default::default()
            },
        );
        assert!(coarse.count < 8, "{}", coarse.count);
    }

    #[test]
    fn no_edges_no_levels_and_empty() {
        let g = functions(3, &[]);
        let c = communities(
            &g,
            &EdgeFilter::dependencies(),
            &|ix| ix != 0,
            &Default::default(),
        );
        assert_eq!(c.membership, vec![NONE, 0, 1, 2]);
        assert_eq!((c.count, c.levels), (3, 0));
        assert_eq!(c.modularity, 0.0);
        let c = communities(
            &g,
            &EdgeFilter::dependencies(),
            &|_| false,
            &Default::default(),
        );
        assert_eq!(c.count, 0);
        assert!(c.membership.iter().all(|&m| m == NONE));
        // max_levels 0: singletons, modularity of the singleton partition.
        let g = functions(2, &[(1, 2)]);
        let c = communities(
            &g,
            &EdgeFilter::dependencies(),
            &|ix| ix != 0,
            &CommunityOptions {
                max_levels: 0,
                ..Default::default()
            },
        );
        assert_eq!(c.count, 2);
        assert!((c.modularity + 0.5).abs() < 1e-12);
    }

    #[test]
    fn refinement_yields_connected_subcommunities_inside_communities() {
        // Two triangles {0,1,2}, {3,4,5} joined by 2-3, and a path 6-7-8; the partition puts
        // both triangles in community 0 and the path's ends (not its middle) in community 1.
        let mut edges = Vec::new();
        clique(&[1, 2, 3], &mut edges);
        clique(&[4, 5, 6], &mut edges);
        edges.extend([(3, 4), (7, 8), (8, 9)]);
        let g = functions(9, &edges);
        let sub = Subgraph::build(&g, &EdgeFilter::dependencies(), &|ix| ix != 0);
        let level = Level::from_sub(&sub);
        let m2: f64 = level.k.iter().sum();
        let part = vec![0, 0, 0, 0, 0, 0, 1, 2, 1];
        let (refined, count) = refine(&level, &part, 3, m2, 1.0, &mut SplitMix64::new(0));
        // Sub-communities never straddle communities and are connected: 6 and 8 stay apart.
        for i in 0..9 {
            for j in 0..9 {
                if refined[i] == refined[j] {
                    assert_eq!(part[i], part[j]);
                }
            }
        }
        assert_ne!(refined[6], refined[8]);
        let (split, _) = split_connected(&level, &refined);
        assert_eq!(
            renumber(&split).1,
            count,
            "every sub-community is connected"
        );
        assert!(count < 9, "something merged: {refined:?}");
        // Only the triangles can merge (the path's ends are not adjacent, its middle is alone).
        assert_eq!(
            &refined[6..],
            &[count as u32 - 3, count as u32 - 2, count as u32 - 1]
        );
    }

    #[test]
    fn split_connected_splits() {
        let g = functions(4, &[(1, 2), (3, 4)]);
        let sub = Subgraph::build(&g, &EdgeFilter::dependencies(), &|ix| ix != 0);
        let level = Level::from_sub(&sub);
        assert_eq!(
            split_connected(&level, &[0, 0, 0, 0]),
            (vec![0, 0, 1, 1], 2)
        );
        assert_eq!(renumber(&[3, 3, 1, 2]), (vec![0, 0, 1, 2], 3));
    }

    #[test]
    fn symmetric_csr_merges() {
        let (start, adj) = symmetric_csr(3, |emit| {
            emit(0, 2, 1.0);
            emit(0, 1, 1.0);
            emit(0, 2, 2.0);
            emit(2, 0, 1.0);
        });
        assert_eq!(start, vec![0, 2, 2, 3]);
        assert_eq!(adj, vec![(1, 1.0), (2, 3.0), (0, 1.0)]);
    }
}
