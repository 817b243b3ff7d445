//! Runs the language query once (in two parts, see `cache.rs`) and groups each match's captures
//! into raw definitions, references, imports and scopes (still tree nodes, not yet facts).

use rustc_hash::FxHashMap;
use sextant_lang::{Capture, CompiledQuery, Language};
use sextant_model::{NodeKind, RefKind};
use tree_sitter::{Node, QueryCursor, QueryMatch, StreamingIterator, Tree};

use crate::cache::{MATCH_LIMIT, Own, Tools};
use crate::flatten::Parents;

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

/// A type parameter: its name and the node it is in scope over.
pub(crate) struct RawGeneric<'t> {
    pub name: Node<'t>,
    pub scope: Node<'t>,
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
    pub generics: Vec<RawGeneric<'t>>,
    /// `@local.scope` nodes.
    pub local_scopes: Vec<Node<'t>>,
    /// Type parameters declared in place (`infer U`), and the nodes that can hold them.
    pub inplace_generics: Vec<Node<'t>>,
    pub generic_scopes: Vec<Node<'t>>,
    /// (definition node id, its declared type) from `@typed` patterns.
    pub typed: Vec<(usize, Node<'t>)>,
    pub package: Option<Node<'t>>,
    /// (start, end) bytes of the nodes that count for complexity, when the query captured them.
    pub branches: Option<Vec<(u32, u32)>>,
    /// Where the query executor stopped following a pattern's ways (too many): facts there may
    /// be missing.
    pub cut_short: Option<Node<'t>>,
    /// The flat tree our executor matched on (`None` on tree-sitter's cursor): parents of nodes.
    pub flat: Option<crate::flatten::Flat<'t>>,
}

/// Collects raw items. The same node captured by several patterns keeps the first pattern.
///
/// A split query (see `cache.rs`) gives the full query's items, in the same order, unless one of
/// these holds, and then the full query runs instead: a cursor had too many matches in progress
/// (the parts' limits add up to the full cursor's, so below them the full one would not have
/// overflowed); the root node kind occurs below the root; or a definition from the root part and
/// one from the main part have the same span (their order in the full query's match stream is
/// unknown). Every other order the items depend on is that of one part's own matches, which the
/// other patterns do not change (tree-sitter advances each pattern's match states on their own,
/// and finished matches come out in the order they finish).
///
/// `reference` runs the full query (for tests).
pub(crate) fn collect<'t>(
    language: &Language,
    tools: &mut Tools,
    tree: &'t Tree,
    text: &str,
    reference: bool,
) -> Raw<'t> {
    let mut raw = collect_matches(language, tools, tree, text, reference);
    drop_lexical_refs(&mut raw, text);
    raw
}

fn collect_matches<'t>(
    language: &Language,
    tools: &mut Tools,
    tree: &'t Tree,
    text: &str,
    reference: bool,
) -> Raw<'t> {
    if !reference && let Some(own) = &tools.queries.own {
        return collect_own(own, &tools.queries.complexity_kinds, tree, text);
    }
    if !tools.queries.split
        && let Some(main) = &tools.queries.main
    {
        return collect_full(&main.compiled, &mut tools.cursor, tree, text);
    }
    let split = (!reference && tools.queries.split).then(|| collect_split(tools, tree, text));
    if let Some((raw, true)) = split {
        return raw;
    }
    match tools.queries.full(language) {
        Ok(full) => {
            let mut cursor = QueryCursor::new();
            cursor.set_match_limit(MATCH_LIMIT);
            collect_full(&full, &mut cursor, tree, text)
        }
        // Cannot happen (its parts compiled): the split result is the best there is.
        Err(_) => split.map(|(raw, _)| raw).unwrap_or_default(),
    }
}

/// Runs the whole query on our own executor (see `matcher.rs`); branch nodes are those of the
/// marked kinds.
fn collect_own<'t>(own: &Own, complexity: &[bool], tree: &'t Tree, text: &str) -> Raw<'t> {
    let counted = complexity.iter().any(|&k| k);
    let mut raw = Raw::default();
    // Room for most files' raw items at once instead of doubling the vectors (and copying them)
    // a dozen times. Before duplicates and lexical names are dropped, a median file of our
    // corpora has one raw reference per 20 (TypeScript) to 110 (C) bytes, a binding per 65-260
    // and a definition per 90-480; memory reserved and not used is never touched.
    raw.refs.reserve(text.len() / 16);
    raw.bindings.reserve(text.len() / 64);
    raw.defs.reserve(text.len() / 128);
    let mut branches: Vec<(u32, u32)> = Vec::new();
    let program = &own.program;
    let (cut_short, flat) = own.program.run(
        tree,
        text.as_bytes(),
        if counted { complexity } else { &[] },
        |node| branches.push((node.start_byte() as u32, node.end_byte() as u32)),
        |pattern, captures, flat| {
            let import_name = || program.property(pattern, "import.name").map(str::to_string);
            add_item(
                &mut raw,
                captures.iter().copied(),
                &own.captures,
                import_name,
                pattern,
                Parents(Some(flat)),
            );
        },
    );
    raw.branches = counted.then_some(branches);
    raw.cut_short = cut_short;
    raw.flat = Some(flat);
    dedup(&mut raw);
    raw
}

/// Runs the full query (pattern indices are the language's own).
fn collect_full<'t>(
    compiled: &CompiledQuery,
    cursor: &mut QueryCursor,
    tree: &'t Tree,
    text: &str,
) -> Raw<'t> {
    let mut raw = Raw::default();
    let mut matches = cursor.matches(&compiled.query, tree.root_node(), text.as_bytes());
    while let Some(m) = matches.next() {
        add_match(&mut raw, m, compiled, m.pattern_index);
    }
    dedup(&mut raw);
    raw
}

/// Runs both parts of a split query; `false` when the result may differ from the full query's.
fn collect_split<'t>(tools: &mut Tools, tree: &'t Tree, text: &str) -> (Raw<'t>, bool) {
    let Tools {
        cursor,
        root_cursor,
        queries,
        ..
    } = tools;
    let mut raw = Raw {
        branches: queries.branch_patterns.as_ref().map(|_| Vec::new()),
        ..Raw::default()
    };
    let mut exact = true;
    let root = tree.root_node();
    let Some(main) = &queries.main else {
        return (raw, false);
    };
    let mut matches = cursor.matches(&main.compiled.query, root, text.as_bytes());
    while let Some(m) = matches.next() {
        let local = m.pattern_index;
        if queries
            .branch_patterns
            .as_ref()
            .is_some_and(|r| r.contains(&local))
        {
            if let Some(branches) = raw.branches.as_mut() {
                for c in m.captures() {
                    branches.push((c.node.start_byte() as u32, c.node.end_byte() as u32));
                }
            }
        } else if Some(local) == queries.root_sentinel {
            exact &= m.captures().iter().all(|c| c.node.id() == root.id());
        } else if let Some(Some(global)) = main.global.get(local) {
            add_match(&mut raw, m, &main.compiled, *global);
        }
    }
    exact &= !cursor.did_exceed_match_limit();
    if let Some(part) = &queries.root {
        let mut matches = root_cursor.matches(&part.compiled.query, root, text.as_bytes());
        while let Some(m) = matches.next() {
            if let Some(Some(global)) = part.global.get(m.pattern_index) {
                add_match(&mut raw, m, &part.compiled, *global);
            }
        }
        exact &= !root_cursor.did_exceed_match_limit();
    }
    dedup(&mut raw);
    // Definitions sort by span; those with equal spans keep their match order, which is known
    // within a part only.
    exact &= raw
        .defs
        .chunk_by(|a, b| same_span(a.node, b.node))
        .all(|group| {
            group.len() < 2
                || group
                    .iter()
                    .all(|d| queries.in_root[d.pattern] == queries.in_root[group[0].pattern])
        });
    (raw, exact)
}

fn same_span(a: Node<'_>, b: Node<'_>) -> bool {
    a.start_byte() == b.start_byte() && a.end_byte() == b.end_byte()
}

/// Adds the item of one tree-sitter match. `pattern` is its index in the language's full query.
fn add_match<'t>(
    raw: &mut Raw<'t>,
    m: &QueryMatch<'_, 't>,
    compiled: &CompiledQuery,
    pattern: usize,
) {
    let import_name = || {
        compiled
            .query
            .property_settings(m.pattern_index)
            .iter()
            .find(|p| &*p.key == "import.name")
            .and_then(|p| p.value.as_deref().map(str::to_string))
    };
    let captures = m.captures().iter().map(|c| (c.index, c.node));
    add_item(
        raw,
        captures,
        &compiled.captures,
        import_name,
        pattern,
        Parents(None),
    );
}

/// Adds one match's item from its captures (index into `table`, node). `pattern` is its index
/// in the language's full query; `import_name` gives its `#set! import.name`.
fn add_item<'t>(
    raw: &mut Raw<'t>,
    captures: impl Iterator<Item = (u32, Node<'t>)>,
    table: &[Option<Capture>],
    import_name: impl FnOnce() -> Option<String>,
    pattern: usize,
    parents: Parents<'_, 't>,
) {
    let mut primary: Option<(Capture, Node<'t>)> = None;
    let mut name = None;
    let mut receiver = None;
    let mut implementor = None;
    let mut owner = None;
    let mut doc = None;
    let mut body = None;
    let mut scope_name = None;
    let mut source = None;
    let mut name_of_import = None;
    let mut alias = None;
    let mut wildcard = false;
    let mut import_tree = None;
    let mut type_node = None;
    let mut binding_name = None;
    let mut binding_type = None;
    let mut binding_value = None;
    let mut generic_name = None;
    for (index, node) in captures {
        let Some(meaning) = table[index as usize] else {
            continue;
        };
        match meaning {
            Capture::Definition(_)
            | Capture::Reference(_)
            | Capture::Scope
            | Capture::Binding
            | Capture::Typed
            | Capture::Generic
            | Capture::GenericScope
            | Capture::LocalScope
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
            Capture::ImportName => name_of_import = Some(node),
            Capture::ImportAlias => alias = Some(node),
            Capture::ImportWildcard => wildcard = true,
            Capture::ImportTree => import_tree = Some(node),
            Capture::PackageName => raw.package = raw.package.or(Some(node)),
            Capture::Type => type_node = Some(node),
            Capture::BindingName => binding_name = Some(node),
            Capture::BindingType => binding_type = Some(node),
            Capture::BindingValue => binding_value = Some(node),
            Capture::GenericName => generic_name = Some(node),
        }
    }
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
        Some((Capture::Generic, node)) => {
            if let Some(name) = generic_name {
                let scope = parents.of(node).unwrap_or(node);
                raw.generics.push(RawGeneric { name, scope });
            }
        }
        Some((Capture::GenericScope, scope)) => match generic_name {
            Some(name) => raw.generics.push(RawGeneric { name, scope }),
            None => raw.generic_scopes.push(scope),
        },
        None => {
            if let Some(name) = generic_name {
                raw.inplace_generics.push(name);
            }
        }
        Some((Capture::LocalScope, node)) => raw.local_scopes.push(node),
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
            let fixed_name = import_name();
            raw.imports.push(RawImport {
                node,
                source,
                name: name_of_import,
                alias,
                wildcard,
                tree: import_tree,
                fixed_name,
            })
        }
        _ => {}
    }
}

/// Drops references to names whose scope the syntax tells exactly, so that they neither resolve
/// to an unrelated same-named definition nor stay unresolved:
/// - a type reference to a type parameter within its scope (`T` in `fn f<T>(x: T)`);
/// - a plain read or call of a local (a `@binding` that is not a definition) within the innermost
///   `@local.scope` around its name (the parameters of an arrow function, a `const` in a block),
///   unless a definition of the same name lies in that scope.
fn drop_lexical_refs(raw: &mut Raw<'_>, text: &str) {
    let name_of = |n: Node<'_>| text.get(n.byte_range()).unwrap_or_default();
    let mut types: FxHashMap<&str, Vec<(usize, usize)>> = FxHashMap::default();
    for g in &raw.generics {
        types
            .entry(name_of(g.name))
            .or_default()
            .push((g.scope.start_byte(), g.scope.end_byte()));
    }
    for (name, scope) in innermost_scopes(raw.inplace_generics.clone(), &raw.generic_scopes) {
        types.entry(name_of(name)).or_default().push(scope);
    }
    let mut values: FxHashMap<&str, Vec<(usize, usize)>> = FxHashMap::default();
    if !raw.local_scopes.is_empty() && !raw.bindings.is_empty() {
        let def_names: rustc_hash::FxHashSet<usize> = raw
            .defs
            .iter()
            .filter_map(|d| d.name.map(|n| n.id()))
            .collect();
        let names: Vec<Node<'_>> = raw
            .bindings
            .iter()
            .map(|b| b.name)
            .filter(|n| !def_names.contains(&n.id()))
            .collect();
        for (name, scope) in innermost_scopes(names, &raw.local_scopes) {
            values.entry(name_of(name)).or_default().push(scope);
        }
        // A definition of the name inside the scope (a nested function) may be what a reference
        // means: keep those references.
        for d in &raw.defs {
            if let Some(name) = d.name
                && let Some(spans) = values.get_mut(name_of(name))
            {
                let at = d.node.start_byte();
                spans.retain(|&(s, e)| !(s <= at && at < e));
            }
        }
    }
    if types.is_empty() && values.is_empty() {
        return;
    }
    raw.refs.retain(|r| {
        if r.receiver.is_some() {
            return true;
        }
        let scopes = match r.kind {
            RefKind::Type => &types,
            RefKind::Read | RefKind::Call => &values,
            _ => return true,
        };
        let at = r.name.start_byte();
        !scopes
            .get(name_of(r.name))
            .is_some_and(|spans| spans.iter().any(|&(s, e)| s <= at && at < e))
    });
}

/// Each name with the byte span of the innermost scope around it (names outside every scope are
/// left out), by one sweep: scopes are nested or disjoint, so those open at a position form a
/// stack whose top is the innermost. (`Node::parent` would walk down from the root each time.)
fn innermost_scopes<'t>(
    mut names: Vec<Node<'t>>,
    scopes: &[Node<'_>],
) -> Vec<(Node<'t>, (usize, usize))> {
    if names.is_empty() || scopes.is_empty() {
        return Vec::new();
    }
    names.sort_by_key(|n| n.start_byte());
    let mut spans: Vec<(usize, usize)> = scopes
        .iter()
        .map(|n| (n.start_byte(), n.end_byte()))
        .collect();
    spans.sort_by_key(|&(s, e)| (s, std::cmp::Reverse(e)));
    spans.dedup();
    let mut out = Vec::with_capacity(names.len());
    let mut open: Vec<(usize, usize)> = Vec::new();
    let mut next = 0;
    for name in names {
        let at = name.start_byte();
        while let Some(&(s, e)) = spans.get(next)
            && s <= at
        {
            while open.last().is_some_and(|&(_, end)| end <= s) {
                open.pop();
            }
            open.push((s, e));
            next += 1;
        }
        while open.last().is_some_and(|&(_, end)| end <= at) {
            open.pop();
        }
        if let Some(&scope) = open.last() {
            out.push((name, scope));
        }
    }
    out
}

fn dedup(raw: &mut Raw<'_>) {
    // Definitions: one per node, lowest pattern index wins. (Maps and sets are sized up front:
    // growing them was ~0.4 % of a TypeScript index's CPU.)
    let mut best: FxHashMap<usize, usize> =
        FxHashMap::with_capacity_and_hasher(raw.defs.len(), Default::default());
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
    // A node's end is computed from its subtree: once per definition, not per comparison.
    raw.defs
        .sort_by_cached_key(|d| (d.node.start_byte(), std::cmp::Reverse(d.node.end_byte())));
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
    let mut best: FxHashMap<usize, usize> =
        FxHashMap::with_capacity_and_hasher(raw.refs.len(), Default::default());
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
    let mut seen =
        rustc_hash::FxHashSet::with_capacity_and_hasher(raw.bindings.len(), Default::default());
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
