//! A seeded synthetic graph of 50k nodes: every algorithm's invariants, and timings
//! (printed with `--nocapture`; run with `--release` for meaningful numbers).

use std::time::Instant;

use super::*;
use crate::testing::{edge, node};
use crate::{EdgeInput, Graph, Ix, NodeKind};

const FILES: i64 = 1_000;
const PER_FILE: i64 = 49;
const FILES_PER_PACKAGE: i64 = 10;

/// 1 000 files of 49 functions (50 000 nodes); each function makes 1–3 dependency edges,
/// three quarters inside its package of 10 files, the rest anywhere, some repeated (counts).
fn synthetic(seed: u64) -> Graph {
    let mut rng = SplitMix64::new(seed);
    let mut nodes = Vec::with_capacity((FILES * (PER_FILE + 1)) as usize);
    let fid = |file: i64, k: i64| 1_000_000 + file * PER_FILE + k;
    for file in 0..FILES {
        let path = format!("pkg{}/m{file}.py", file / FILES_PER_PACKAGE);
        nodes.push(node(file, NodeKind::File, &path, &path, None));
        for k in 0..PER_FILE {
            nodes.push(node(
                fid(file, k),
                NodeKind::Function,
                "m.f",
                &path,
                Some(file),
            ));
        }
    }
    let kinds = [
        EdgeKind::Calls,
        EdgeKind::Calls,
        EdgeKind::Calls,
        EdgeKind::References,
        EdgeKind::UsesType,
    ];
    let mut edges: Vec<EdgeInput> = Vec::with_capacity(160_000);
    for file in 0..FILES {
        let package = file / FILES_PER_PACKAGE;
        for k in 0..PER_FILE {
            let src = fid(file, k);
            let out = 1 + rng.below(3);
            for _ in 0..out {
                let to_file = if rng.below(4) < 3 {
                    package * FILES_PER_PACKAGE + rng.below(FILES_PER_PACKAGE as usize) as i64
                } else {
                    rng.below(FILES as usize) as i64
                };
                let dst = fid(to_file, rng.below(PER_FILE as usize) as i64);
                let kind = kinds[rng.below(kinds.len())];
                let times = if rng.below(8) == 0 { 3 } else { 1 };
                for _ in 0..times {
                    edges.push(edge(src, dst, kind));
                }
            }
        }
    }
    Graph::new(nodes, &edges)
}

/// Membership covers exactly the included nodes, ids are ordered by size, and every community
/// is connected in the undirected projection.
fn check_communities(g: &Graph, sub: &Subgraph, c: &Communities) {
    let deps = EdgeFilter::dependencies();
    let not_file = |ix: Ix| g.node(ix).kind != NodeKind::File;
    let mut sizes = vec![0usize; c.count];
    for ix in 0..g.len() as Ix {
        let m = c.membership[ix as usize];
        if not_file(ix) {
            assert!((m as usize) < c.count);
            sizes[m as usize] += 1;
        } else {
            assert_eq!(m, u32::MAX);
        }
    }
    assert!(sizes.iter().all(|&s| s > 0));
    assert!(sizes.windows(2).all(|w| w[0] >= w[1]), "ordered by size");
    assert!(c.modularity > 0.3 && c.modularity < 1.0, "{}", c.modularity);
    // Every community is connected in the undirected projection.
    let mut seen = vec![false; g.len()];
    let mut first_of = vec![u32::MAX; c.count];
    let mut stack = Vec::new();
    let mut components = 0;
    for u in 0..sub.len() as u32 {
        let ix = sub.global(u);
        let m = c.membership[ix as usize];
        if seen[ix as usize] {
            continue;
        }
        assert_eq!(
            first_of[m as usize],
            u32::MAX,
            "community {m} is disconnected"
        );
        first_of[m as usize] = ix;
        components += 1;
        seen[ix as usize] = true;
        stack.push(ix);
        while let Some(x) = stack.pop() {
            for e in g.out_edges(x).iter().chain(g.in_edges(x)) {
                let y = e.other;
                if deps.allows(e.kind) && !seen[y as usize] && c.membership[y as usize] == m {
                    seen[y as usize] = true;
                    stack.push(y);
                }
            }
        }
    }
    assert_eq!(components, c.count);
    for i in 1..c.count {
        assert!(sizes[i - 1] > sizes[i] || first_of[i - 1] < first_of[i]);
    }
}

#[test]
#[allow(clippy::print_stderr)]
fn synthetic_50k_invariants() {
    let t = Instant::now();
    let g = synthetic(7);
    let build = t.elapsed();
    assert_eq!(g.len(), 50_000);
    let not_file = |ix: Ix| g.node(ix).kind != NodeKind::File;
    let deps = EdgeFilter::dependencies();
    let included = (0..g.len() as Ix).filter(|&ix| not_file(ix)).count();

    let t = Instant::now();
    let sub = Subgraph::build(&g, &deps, &not_file);
    let sub_time = t.elapsed();
    assert_eq!(sub.len(), included);

    let t = Instant::now();
    let pr = pagerank(&g, &deps, &not_file, &PageRankOptions::default());
    let pr_time = t.elapsed();
    let sum: f64 = pr.scores.iter().sum();
    assert!((sum - 1.0).abs() < 1e-9, "{sum}");
    assert!(pr.converged, "{} iterations", pr.iterations);
    for ix in 0..g.len() as Ix {
        if not_file(ix) {
            assert!(pr.scores[ix as usize] > 0.0);
        } else {
            assert_eq!(pr.scores[ix as usize], 0.0);
        }
    }

    let t = Instant::now();
    let c = communities(&g, &deps, &not_file, &CommunityOptions::default());
    let leiden_time = t.elapsed();
    check_communities(&g, &sub, &c);
    // Louvain for comparison (release only, to keep the debug run short).
    let louvain = (!cfg!(debug_assertions)).then(|| {
        let t = Instant::now();
        let opts = CommunityOptions {
            method: CommunityMethod::Louvain,
            ..Default::default()
        };
        let c = communities(&g, &deps, &not_file, &opts);
        let time = t.elapsed();
        check_communities(&g, &sub, &c);
        (c.count, c.modularity, time)
    });

    let t = Instant::now();
    let sccs = strongly_connected(&g, &deps, &not_file);
    let scc_time = t.elapsed();
    assert!(!sccs.is_empty());
    let members: usize = sccs.iter().map(Vec::len).sum();
    assert!(members <= included);
    for (i, comp) in sccs.iter().enumerate() {
        assert!(comp.windows(2).all(|w| w[0] < w[1]));
        assert!(comp.len() > 1 || g.out_edges(comp[0]).iter().any(|e| e.other == comp[0]));
        if i > 0 {
            assert!(sccs[i - 1].len() >= comp.len());
        }
    }

    let t = Instant::now();
    let sources = if cfg!(debug_assertions) { 8 } else { 512 };
    let opts = BetweennessOptions {
        max_sources: sources,
        seed: 3,
    };
    let b = betweenness(&g, &deps, &not_file, &opts);
    let bc_time = t.elapsed();
    assert_eq!((b.sources, b.exact), (sources, false));
    assert!(b.scores.iter().all(|&x| x >= 0.0));
    assert!(b.scores.iter().any(|&x| x > 0.0));

    let t = Instant::now();
    let roots: Vec<Ix> = (0..20).map(|i| sub.global(i * 97)).collect();
    let r = reach(&g, &roots, &deps, &not_file, u32::MAX);
    let reach_time = t.elapsed();
    assert!(r.order.len() > roots.len());
    assert_eq!(
        r.order.len(),
        r.depth.iter().filter(|&&d| d != u32::MAX).count()
    );
    let last = *r.order.last().expect("reached");
    let path = r.path_to(last);
    assert!(roots.contains(&path[0]));
    assert_eq!(path.len() as u32, r.depth[last as usize] + 1);

    let t = Instant::now();
    let lifted = lift(&g, &deps, &not_file, &|ix| Some(g.file_of(ix)));
    let file_cycles = strongly_connected_lifted(&lifted);
    let lift_time = t.elapsed();
    assert!(lifted.edge_count() > 0);
    assert!(!file_cycles.is_empty());
    assert!(file_cycles.iter().flatten().all(|&f| !not_file(f)));

    // Bit-identical on a rerun (release only: the small-graph tests check it in debug).
    if !cfg!(debug_assertions) {
        let again = communities(&g, &deps, &not_file, &CommunityOptions::default());
        assert_eq!(c.membership, again.membership);
        assert_eq!(c.modularity.to_bits(), again.modularity.to_bits());
        let pr2 = pagerank(&g, &deps, &not_file, &PageRankOptions::default());
        assert!(
            pr.scores
                .iter()
                .zip(&pr2.scores)
                .all(|(a, b)| a.to_bits() == b.to_bits())
        );
    }

    eprintln!(
        "synthetic {} nodes, {} merged edges ({} in the dependency subgraph): build {build:?}, \
         subgraph {sub_time:?}, pagerank {pr_time:?} ({} iterations), leiden {leiden_time:?} \
         ({} communities, Q {:.3}, {} levels), scc {scc_time:?} ({} non-trivial, largest {}), \
         betweenness {bc_time:?} ({} sources), reach {reach_time:?} ({} reached), \
         lift+scc {lift_time:?} ({} file edges, {} file cycles); louvain (communities, Q, time) \
         {louvain:?}",
        g.len(),
        g.edge_count(),
        sub.edge_count(),
        pr.iterations,
        c.count,
        c.modularity,
        c.levels,
        sccs.len(),
        sccs[0].len(),
        b.sources,
        r.order.len(),
        lifted.edge_count(),
        file_cycles.len(),
    );
}
