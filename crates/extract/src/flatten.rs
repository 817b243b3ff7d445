//! The flat tree the query executor matches on: a tree's visible nodes in pre-order, listed by
//! one walk in C (`flatten.c`) over tree-sitter's own subtrees. The unsafe code of this crate is
//! here: the foreign call, and turning its raw nodes back into `tree_sitter::Node`s.
#![allow(unsafe_code)]

use tree_sitter::{Node, Tree};

/// No node (a missing first child or next sibling).
pub(crate) const NONE: u32 = u32::MAX;

/// A visible node of the tree, with what matching asks of it. Filled by `flatten.c`
/// (`SxFlatNode`, same layout).
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct FlatNode<'t> {
    raw: tree_sitter::ffi::TSNode,
    pub(crate) kind: u16,
    /// Its field in its parent (0: none).
    pub(crate) field: u16,
    pub(crate) named: bool,
    pub(crate) error: bool,
    pub(crate) depth: u32,
    /// Pre-order indices of its first child and next sibling (`NONE`).
    pub(crate) first_child: u32,
    pub(crate) next_sibling: u32,
    /// Pre-order index of its parent (`NONE` for the root).
    pub(crate) parent: u32,
    tree: std::marker::PhantomData<&'t Tree>,
}

impl<'t> FlatNode<'t> {
    pub(crate) fn node(&self) -> Node<'t> {
        // SAFETY: `raw` was made by tree-sitter's `ts_node_new` for a node of the tree `'t`
        // borrows, which outlives the flat copy.
        unsafe { Node::from_raw(self.raw) }
    }
}

unsafe extern "C" {
    /// `flatten.c`: lists the visible nodes of `tree` into `out` (room for `capacity`) but the
    /// anonymous leaves whose kind `keep` does not mark; returns how many there are to list
    /// (more than `capacity`: call again with more room), `u32::MAX` when out of memory.
    /// `frames`/`frames_cap`: scratch space it `realloc`s.
    fn sextant_flatten(
        tree: *const tree_sitter::ffi::TSTree,
        keep: *const u8,
        keep_len: u32,
        out: *mut FlatNode<'_>,
        capacity: u32,
        frames: *mut *mut std::ffi::c_void,
        frames_cap: *mut u32,
    ) -> u32;
    /// `flatten.c`: frees the walk's scratch space.
    fn sextant_flatten_free(frames: *mut std::ffi::c_void);
}

/// The tree's visible nodes in pre-order, read in one walk: matching then never calls into
/// tree-sitter (its cursor climbs through hidden nodes at every step).
pub(crate) struct Flat<'t> {
    pub(crate) nodes: Vec<FlatNode<'t>>,
}

impl<'t> Flat<'t> {
    /// The nodes but the anonymous leaves whose kind `keep` does not mark.
    pub(crate) fn of(tree: &'t Tree, bytes: usize, keep: &[bool]) -> Flat<'t> {
        // About one visible node per 4-5 bytes of source in our corpora.
        let mut nodes: Vec<FlatNode<'t>> = Vec::with_capacity(bytes / 4 + 16);
        let raw_tree = tree.root_node().into_raw().tree;
        let mut frames: *mut std::ffi::c_void = std::ptr::null_mut();
        let mut frames_cap = 0u32;
        loop {
            let capacity = u32::try_from(nodes.capacity()).unwrap_or(u32::MAX);
            // SAFETY: `bool` is one byte (0 or 1); `out` has room for `capacity` nodes, of which
            // the walk initializes the first `min(count, capacity)`; `frames` is null or what an
            // earlier call `realloc`ed.
            let count = unsafe {
                sextant_flatten(
                    raw_tree,
                    keep.as_ptr().cast(),
                    u32::try_from(keep.len()).unwrap_or(u32::MAX),
                    nodes.as_mut_ptr(),
                    capacity,
                    &mut frames,
                    &mut frames_cap,
                )
            };
            assert!(count != u32::MAX, "out of memory walking a syntax tree");
            if count <= capacity {
                // SAFETY: see above; the walk wrote `count` nodes.
                unsafe { nodes.set_len(count as usize) };
                break;
            }
            nodes.reserve_exact(count as usize);
        }
        // SAFETY: null or allocated by the walk, and not used again.
        unsafe { sextant_flatten_free(frames) };
        Flat { nodes }
    }

    /// The parent of `node`, as [`Node::parent`] gives it, without its walk down from the root
    /// (which costs thousands of instructions in a long file): the node is found by its start
    /// byte (pre-order lists nodes by start) and identity. A node the list left out (punctuation)
    /// asks tree-sitter.
    pub(crate) fn parent(&self, node: Node<'t>) -> Option<Node<'t>> {
        let start = node.start_byte() as u32;
        let first = self.nodes.partition_point(|n| n.raw.context[0] < start);
        let found = self.nodes[first..]
            .iter()
            .take_while(|n| n.raw.context[0] == start)
            .find(|n| n.raw.id as usize == node.id());
        match found {
            Some(n) if n.parent == NONE => None,
            Some(n) => Some(self.nodes[n.parent as usize].node()),
            None => node.parent(),
        }
    }

    pub(crate) fn children(&self, i: u32) -> impl Iterator<Item = u32> + '_ {
        let mut next = self.nodes[i as usize].first_child;
        std::iter::from_fn(move || {
            let here = next;
            if here == NONE {
                return None;
            }
            next = self.nodes[here as usize].next_sibling;
            Some(here)
        })
    }
}

/// Parents of nodes: from our executor's flat tree when it ran, else from tree-sitter (whose
/// `Node::parent` walks down from the root).
#[derive(Clone, Copy)]
pub(crate) struct Parents<'a, 't>(pub(crate) Option<&'a Flat<'t>>);

impl<'t> Parents<'_, 't> {
    pub(crate) fn of(self, node: Node<'t>) -> Option<Node<'t>> {
        match self.0 {
            Some(flat) => flat.parent(node),
            None => node.parent(),
        }
    }
}

/// The same list, made with tree-sitter's cursor (the walk `flatten.c` replaces), for tests:
/// (kind, field, named, error, depth, first child, next sibling, start byte, end byte).
pub(crate) fn by_cursor(tree: &Tree, keep: &[bool]) -> Vec<[u32; 9]> {
    let mut nodes: Vec<[u32; 9]> = Vec::new();
    let mut walk = tree.walk();
    let mut last: Vec<u32> = Vec::new();
    let mut depth = 0usize;
    'outer: loop {
        let node = walk.node();
        let kind = node.kind_id();
        let named = node.is_named();
        if !named && !keep.get(kind as usize).copied().unwrap_or(false) && node.child_count() == 0 {
            if walk.goto_next_sibling() {
                continue 'outer;
            }
            loop {
                if !walk.goto_parent() {
                    break 'outer;
                }
                depth -= 1;
                if walk.goto_next_sibling() {
                    continue 'outer;
                }
            }
        }
        let index = nodes.len() as u32;
        nodes.push([
            u32::from(kind),
            walk.field_id().map_or(0, |f| u32::from(f.get())),
            u32::from(named),
            u32::from(kind == u16::MAX),
            depth as u32,
            NONE,
            NONE,
            node.start_byte() as u32,
            node.end_byte() as u32,
        ]);
        if last.len() <= depth {
            last.push(NONE);
        }
        let previous = last[depth];
        if previous != NONE {
            nodes[previous as usize][6] = index;
        } else if depth > 0 {
            nodes[last[depth - 1] as usize][5] = index;
        }
        last[depth] = index;
        if walk.goto_first_child() {
            depth += 1;
            if last.len() > depth {
                last[depth] = NONE;
            }
            continue;
        }
        loop {
            if walk.goto_next_sibling() {
                continue 'outer;
            }
            if !walk.goto_parent() {
                break 'outer;
            }
            depth -= 1;
        }
    }
    nodes
}

/// Every node of `tree` (punctuation included) whose parent by [`Flat::parent`] differs from
/// [`Node::parent`]'s, with the number of nodes checked: for tests.
pub(crate) fn parent_mismatches(tree: &Tree) -> (usize, Vec<String>) {
    let flat = Flat::of(tree, 0, &[]);
    let mut walk = tree.walk();
    let (mut checked, mut wrong) = (0, Vec::new());
    'outer: loop {
        let node = walk.node();
        checked += 1;
        let ours = flat.parent(node).map(|p| p.id());
        let theirs = node.parent().map(|p| p.id());
        if ours != theirs {
            wrong.push(format!("{} at {:?}", node.kind(), node.byte_range()));
        }
        if walk.goto_first_child() {
            continue;
        }
        loop {
            if walk.goto_next_sibling() {
                continue 'outer;
            }
            if !walk.goto_parent() {
                break 'outer;
            }
        }
    }
    (checked, wrong)
}

impl Flat<'_> {
    /// The list as [`by_cursor`] gives it.
    pub(crate) fn listed(&self) -> Vec<[u32; 9]> {
        self.nodes
            .iter()
            .map(|n| {
                let node = n.node();
                [
                    u32::from(n.kind),
                    u32::from(n.field),
                    u32::from(n.named),
                    u32::from(n.error),
                    n.depth,
                    n.first_child,
                    n.next_sibling,
                    node.start_byte() as u32,
                    node.end_byte() as u32,
                ]
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compare(grammar: &tree_sitter::Language, text: &str, what: &str) -> usize {
        let mut parser = tree_sitter::Parser::new();
        parser.set_language(grammar).unwrap();
        let tree = parser.parse(text, None).unwrap();
        let all = vec![true; grammar.node_kind_count() + 1];
        for keep in [&[][..], &all[..]] {
            let flat = Flat::of(&tree, text.len(), keep);
            let expected = by_cursor(&tree, keep);
            assert_eq!(
                flat.listed(),
                expected,
                "{what}, keeping {} kinds",
                keep.len()
            );
        }
        by_cursor(&tree, &[]).len()
    }

    /// Trees with nothing below the root, and deep ones (the walk's frames grow).
    #[test]
    fn empty_and_deep_trees_are_walked() {
        let registry = sextant_lang::Registry::builtin().unwrap();
        let python = &registry.get("python").unwrap().grammar;
        assert_eq!(compare(python, "", "empty"), 1);
        compare(python, "# only a comment\n", "comment");
        let deep = format!("x = {}1{}\n", "[".repeat(300), "]".repeat(300));
        assert!(compare(python, &deep, "deep") > 300);
        let rust = &registry.get("rust").unwrap().grammar;
        compare(rust, "fn f( { let x = ; }} struct", "broken");
    }
}
