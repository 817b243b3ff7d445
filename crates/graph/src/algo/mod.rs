//! Graph algorithms over [`crate::Graph`] (issue 6): PageRank, betweenness, communities,
//! strongly connected components, reachability and the quotient ("lifted") graph of a grouping.
//!
//! Every algorithm takes an [`EdgeFilter`] (which edge kinds take part) and a node predicate
//! `&dyn Fn(Ix) -> bool` (nodes failing it are ignored entirely, as are the edges touching
//! them). Results are indexed by [`Ix`](crate::Ix) over the whole graph, with a documented
//! "absent" value for excluded nodes.
//!
//! All functions are pure, allocate their working memory up front, and are deterministic: the
//! same graph and options give bit-identical results (nodes in [`Ix`](crate::Ix) order,
//! adjacency sorted, randomness from a seeded [`SplitMix64`], never from hash iteration
//! order). None of them recurses, so 100k-node chains are fine.
//!
//! Most algorithms first build a [`Subgraph`]: the included nodes renumbered densely, with the
//! allowed edges between them merged per (source, target) pair (weights are the summed
//! `count`s of every allowed kind), so inner loops neither test kinds nor call the predicate.

#![warn(missing_docs)]

mod betweenness;
mod communities;
mod lift;
mod pagerank;
mod reach;
mod scc;
mod sub;

#[cfg(test)]
mod synthetic;

pub use betweenness::{Betweenness, BetweennessOptions, betweenness};
pub use communities::{Communities, CommunityMethod, CommunityOptions, communities};
pub use lift::{Lifted, lift, strongly_connected_lifted};
pub use pagerank::{PageRank, PageRankOptions, pagerank};
pub use reach::{Reach, reach};
pub use scc::strongly_connected;
pub use sub::Subgraph;

use crate::EdgeKind;

/// Which edge kinds take part in an algorithm (a bit set over [`EdgeKind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct EdgeFilter {
    bits: u64,
}

const _: () = assert!(EdgeKind::ALL.len() <= 64, "EdgeFilter is a u64 bit set");

fn bit(kind: EdgeKind) -> u64 {
    1u64 << (kind as u32)
}

impl EdgeFilter {
    /// Exactly these kinds.
    pub fn new(kinds: &[EdgeKind]) -> EdgeFilter {
        EdgeFilter {
            bits: kinds.iter().fold(0, |bits, &k| bits | bit(k)),
        }
    }

    /// The kinds that make one definition depend on another: `calls`, `references`, `reads`,
    /// `writes`, `instantiates`, `uses_type`, `inherits`, `implements`, `overrides`, `imports`.
    /// Not `contains` (structure, not dependency).
    pub fn dependencies() -> EdgeFilter {
        EdgeFilter::new(&[
            EdgeKind::Calls,
            EdgeKind::References,
            EdgeKind::Reads,
            EdgeKind::Writes,
            EdgeKind::Instantiates,
            EdgeKind::UsesType,
            EdgeKind::Inherits,
            EdgeKind::Implements,
            EdgeKind::Overrides,
            EdgeKind::Imports,
        ])
    }

    /// Every kind, `contains` included.
    pub fn all() -> EdgeFilter {
        EdgeFilter::new(EdgeKind::ALL)
    }

    /// This filter plus `kind`.
    pub fn with(self, kind: EdgeKind) -> EdgeFilter {
        EdgeFilter {
            bits: self.bits | bit(kind),
        }
    }

    /// This filter without `kind`.
    pub fn without(self, kind: EdgeKind) -> EdgeFilter {
        EdgeFilter {
            bits: self.bits & !bit(kind),
        }
    }

    /// Whether edges of `kind` take part.
    #[inline]
    pub fn allows(&self, kind: EdgeKind) -> bool {
        self.bits & bit(kind) != 0
    }

    /// The allowed kinds, in declaration order.
    pub fn kinds(&self) -> Vec<EdgeKind> {
        EdgeKind::ALL
            .iter()
            .copied()
            .filter(|&k| self.allows(k))
            .collect()
    }
}

/// A tiny seeded generator (SplitMix64) for the deterministic choices algorithms make
/// (betweenness source samples, Louvain node order). Not for anything security related.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator whose whole sequence is determined by `seed`.
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A value in `0..bound` (`bound > 0`), by multiply-shift (bias below 2^-32 for the sizes
    /// used here).
    pub fn below(&mut self, bound: usize) -> usize {
        debug_assert!(bound > 0);
        ((u128::from(self.next_u64()) * bound as u128) >> 64) as usize
    }

    /// Shuffles `items` in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }
}

/// The "none" value of dense indexes (excluded node, unreached, no parent).
pub(crate) const NONE: u32 = u32::MAX;

/// Collects the non-trivial components of a component labelling (`comp[i]` in `0..count`)
/// as sorted lists of `label(i)`, ordered by size descending then first member. A singleton
/// is kept only when `self_loop(i)`.
pub(crate) fn collect_components(
    comp: &[u32],
    count: usize,
    label: impl Fn(usize) -> u32,
    self_loop: impl Fn(usize) -> bool,
) -> Vec<Vec<u32>> {
    let mut size = vec![0u32; count];
    for &c in comp {
        if c != NONE {
            size[c as usize] += 1;
        }
    }
    let mut slot = vec![NONE; count];
    let mut out: Vec<Vec<u32>> = Vec::new();
    for (i, &c) in comp.iter().enumerate() {
        if c == NONE {
            continue;
        }
        let c = c as usize;
        if size[c] == 1 && !self_loop(i) {
            continue;
        }
        if slot[c] == NONE {
            slot[c] = out.len() as u32;
            out.push(Vec::with_capacity(size[c] as usize));
        }
        out[slot[c] as usize].push(label(i));
    }
    for members in &mut out {
        members.sort_unstable();
    }
    out.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a[0].cmp(&b[0])));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edge_filter_sets() {
        let deps = EdgeFilter::dependencies();
        assert!(deps.allows(EdgeKind::Calls));
        assert!(deps.allows(EdgeKind::Imports));
        assert!(!deps.allows(EdgeKind::Contains));
        assert!(!deps.allows(EdgeKind::Tests));
        assert_eq!(deps.kinds().len(), 10);
        let f = EdgeFilter::new(&[EdgeKind::Calls]);
        assert!(f.allows(EdgeKind::Calls) && !f.allows(EdgeKind::References));
        assert!(f.with(EdgeKind::Contains).allows(EdgeKind::Contains));
        assert!(!deps.without(EdgeKind::Calls).allows(EdgeKind::Calls));
        assert_eq!(EdgeFilter::all().kinds().len(), EdgeKind::ALL.len());
    }

    #[test]
    fn splitmix_is_deterministic_and_in_range() {
        let mut a = SplitMix64::new(7);
        let mut b = SplitMix64::new(7);
        for _ in 0..100 {
            assert_eq!(a.next_u64(), b.next_u64());
            assert!(a.below(10) < 10);
            b.below(10);
        }
        let mut v: Vec<u32> = (0..50).collect();
        SplitMix64::new(1).shuffle(&mut v);
        let mut sorted = v.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..50).collect::<Vec<_>>());
        assert_ne!(v, sorted);
    }
}
