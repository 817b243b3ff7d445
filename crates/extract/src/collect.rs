//! Runs the language query once and groups each match's captures into raw definitions,
//! references, imports and scopes (still tree nodes, not yet facts).

use rustc_hash::FxHashMap;
use sextant_lang::Capture;
use sextant_model::{NodeKind, RefKind};
use tree_sitter::{Node, StreamingIterator, Tree};

use crate::cache::Tools;

pub(crate) struct RawDef<'t> {
    pub kind: NodeKind,
    pub node: Node<'t>,
    pub name: Option<Node<'t>>,
    pub owner: Option<Node<'t>>,
    pub doc: Option<Node<'t>>,
    pub body: Option<Node<'t>>,
    pub type_node: Option<Node<'t>>,
    pub pattern: usize,
}

pub(crate) struct RawBinding<'t> {
    pub node: Node<'t>,
    pub name: Node<'t>,
    pub type_node: Option<Node<'t>>,
    pub value: Option<Node<'t>>,
}

pub(crate) struct RawScope<'t> {
    pub node: Node<'t>,
    pub name: Node<'t>,
}

pub(crate) struct RawRef<'t> {
    pub kind: RefKind,
    pub name: Node<'t>,
    pub receiver: Option<Node<'t>>,
    pub implementor: Option<Node<'t>>,
    pub pattern: usize,
}

pub(crate) struct RawImport<'t> {
    pub node: Node<'t>,
    pub source: Option<Node<'t>>,
    pub name: Option<Node<'t>>,
    pub alias: Option<Node<'t>>,
    pub wildcard: bool,
    pub tree: Option<Node<'t>>,
    /// A name fixed by the pattern: `(#set! import.name "default")`.
    pub fixed_name: Option<String>,
}

#[derive(Default)]
pub(crate) struct Raw<'t> {
    pub defs: Vec<RawDef<'t>>,
    pub scopes: Vec<RawScope<'t>>,
    pub refs: Vec<RawRef<'t>>,
    pub imports: Vec<RawImport<'t>>,
    pub bindings: Vec<RawBinding<'t>>,
    /// (definition node id, its declared type) from `@typed` patterns.
    pub typed: Vec<(usize, Node<'t>)>,
    pub package: Option<Node<'t>>,
}

/// Collects raw items. The same node captured by several patterns keeps the first pattern.
pub(crate) fn collect<'t>(tools: &mut Tools, tree: &'t Tree, text: &str) -> Raw<'t> {
    let mut raw = Raw::default();
    let Tools { cursor, query, .. } = tools;
    let table = &query.captures;
    let query = &query.query;
    let mut matches = cursor.matches(query, tree.root_node(), text.as_bytes());
    while let Some(m) = matches.next() {
        let mut primary: Option<(Capture, Node<'t>)> = None;
        let mut name = None;
        let mut receiver = None;
        let mut implementor = None;
        let mut owner = None;
        let mut doc = None;
        let mut body = None;
        let mut scope_name = None;
        let mut source = None;
        let mut import_name = None;
        let mut alias = None;
        let mut wildcard = false;
        let mut import_tree = None;
        let mut type_node = None;
        let mut binding_name = None;
        let mut binding_type = None;
        let mut binding_value = None;
        for capture in m.captures() {
            let Some(meaning) = table[capture.index as usize] else {
                continue;
            };
            let node = capture.node;
            match meaning {
                Capture::Definition(_)
                | Capture::Reference(_)
                | Capture::Scope
                | Capture::Binding
                | Capture::Typed
                | Capture::Import => {
                    primary = Some((meaning, node));
                }
                Capture::Name => name = Some(node),
                Capture::Receiver => receiver = Some(node),
                Capture::Implementor => implementor = Some(node),
                Capture::Owner => owner = Some(node),
                Capture::Doc => doc = Some(node),
                Capture::Body => body = Some(node),
                Capture::ScopeName => scope_name = Some(node),
                Capture::ImportSource => source = Some(node),
                Capture::ImportName => import_name = Some(node),
                Capture::ImportAlias => alias = Some(node),
                Capture::ImportWildcard => wildcard = true,
                Capture::ImportTree => import_tree = Some(node),
                Capture::PackageName => raw.package = raw.package.or(Some(node)),
                Capture::Type => type_node = Some(node),
                Capture::BindingName => binding_name = Some(node),
                Capture::BindingType => binding_type = Some(node),
                Capture::BindingValue => binding_value = Some(node),
            }
        }
        let pattern = m.pattern_index;
        match primary {
            Some((Capture::Definition(kind), node)) => raw.defs.push(RawDef {
                kind,
                node,
                name,
                owner,
                doc,
                body,
                type_node,
                pattern,
            }),
            Some((Capture::Typed, node)) => {
                if let Some(t) = type_node {
                    raw.typed.push((node.id(), t));
                }
            }
            Some((Capture::Binding, node)) => {
                // A binding with neither type nor value still declares a local name (an
                // untyped parameter, a plain assignment): it shadows outer names.
                if let Some(name) = binding_name {
                    raw.bindings.push(RawBinding {
                        node,
                        name,
                        type_node: binding_type,
                        value: binding_value,
                    });
                }
            }
            Some((Capture::Reference(kind), node)) => {
                if let Some(name) = name.or(Some(node)) {
                    raw.refs.push(RawRef {
                        kind,
                        name,
                        receiver,
                        implementor,
                        pattern,
                    });
                }
            }
            Some((Capture::Scope, node)) => {
                if let Some(name) = scope_name.or(name) {
                    raw.scopes.push(RawScope { node, name });
                }
            }
            Some((Capture::Import, node)) => {
                let fixed_name = query
                    .property_settings(pattern)
                    .iter()
                    .find(|p| &*p.key == "import.name")
                    .and_then(|p| p.value.as_deref().map(str::to_string));
                raw.imports.push(RawImport {
                    node,
                    source,
                    name: import_name,
                    alias,
                    wildcard,
                    tree: import_tree,
                    fixed_name,
                })
            }
            _ => {}
        }
    }
    dedup(&mut raw);
    raw
}

fn dedup(raw: &mut Raw<'_>) {
    // Definitions: one per node, lowest pattern index wins.
    let mut best: FxHashMap<usize, usize> = FxHashMap::default();
    for (i, def) in raw.defs.iter().enumerate() {
        best.entry(def.node.id())
            .and_modify(|j| {
                if raw.defs[*j].pattern > def.pattern {
                    *j = i
                }
            })
            .or_insert(i);
    }
    let mut keep: Vec<bool> = vec![false; raw.defs.len()];
    for &i in best.values() {
        keep[i] = true;
    }
    let mut i = 0;
    raw.defs.retain(|_| {
        i += 1;
        keep[i - 1]
    });
    raw.defs
        .sort_by_key(|d| (d.node.start_byte(), std::cmp::Reverse(d.node.end_byte())));
    if !raw.typed.is_empty() {
        let typed: FxHashMap<usize, Node<'_>> = raw.typed.iter().copied().collect();
        for d in raw.defs.iter_mut().filter(|d| d.type_node.is_none()) {
            d.type_node = typed.get(&d.node.id()).copied();
        }
    }

    // References: one per name node; names of definitions are not references.
    let def_names: rustc_hash::FxHashSet<usize> = raw
        .defs
        .iter()
        .filter_map(|d| d.name.map(|n| n.id()))
        .collect();
    let mut best: FxHashMap<usize, usize> = FxHashMap::default();
    for (i, r) in raw.refs.iter().enumerate() {
        if def_names.contains(&r.name.id()) {
            continue;
        }
        best.entry(r.name.id())
            .and_modify(|j| {
                if raw.refs[*j].pattern > r.pattern {
                    *j = i
                }
            })
            .or_insert(i);
    }
    let mut keep: Vec<bool> = vec![false; raw.refs.len()];
    for &i in best.values() {
        keep[i] = true;
    }
    let mut i = 0;
    raw.refs.retain(|_| {
        i += 1;
        keep[i - 1]
    });
    raw.refs.sort_by_key(|r| r.name.start_byte());

    // Scopes: one per node.
    let mut seen = rustc_hash::FxHashSet::default();
    raw.scopes.retain(|s| seen.insert(s.node.id()));
    // Imports: one per (statement, source, name, alias).
    let mut seen = rustc_hash::FxHashSet::default();
    raw.imports.retain(|imp| {
        seen.insert((
            imp.node.id(),
            imp.source.map(|n| n.id()),
            imp.name.map(|n| n.id()),
            imp.alias.map(|n| n.id()),
            imp.tree.map(|n| n.id()),
        ))
    });
    raw.imports.sort_by_key(|imp| imp.node.start_byte());
    // Bindings: one per (name node, type, value); by position.
    let mut seen = rustc_hash::FxHashSet::default();
    raw.bindings.retain(|b| {
        seen.insert((
            b.name.id(),
            b.type_node.map(|n| n.id()),
            b.value.map(|n| n.id()),
        ))
    });
    raw.bindings
        .sort_by_key(|b| (b.node.start_byte(), b.name.start_byte()));
}
