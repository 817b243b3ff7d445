//! From raw captures to [`FileFacts`]: containment, scope paths, kind rules, visibility,
//! modifiers, docs, signatures, complexity, and the enclosing definition of every site.

use sextant_lang::Language;
use sextant_model::{
    Definition, FileFacts, LocalId, NodeKind, RefKind, Reference, Span, Visibility,
};
use tree_sitter::{Node, Tree};

use crate::cache::Tools;
use crate::collect::Raw;
use crate::flatten::Parents;
use crate::text::{clean_doc, clean_type, collapse, is_upper_case, split_qualified};

const SIGNATURE_MAX: usize = 300;
const RECEIVER_MAX: usize = 120;

fn node_text<'a>(node: Node<'_>, text: &'a str) -> &'a str {
    text.get(node.byte_range()).unwrap_or("")
}

pub(crate) fn span(node: Node<'_>) -> Span {
    let start = node.start_position();
    let end = node.end_position();
    Span {
        start_byte: node.start_byte() as u32,
        end_byte: node.end_byte() as u32,
        start_line: start.row as u32 + 1,
        start_col: start.column as u32,
        end_line: end.row as u32 + 1,
        end_col: end.column as u32,
    }
}

/// A definition or a scope, as a container of other definitions.
struct Container {
    start: usize,
    end: usize,
    /// Name segments of everything inside this container (module prefix excluded).
    path: Vec<String>,
    /// The definition this container is, if any.
    local: Option<LocalId>,
    kind: Option<NodeKind>,
}

pub(crate) fn assemble(
    language: &Language,
    tools: &Tools,
    path: &str,
    text: &str,
    tree: &Tree,
    raw: Raw<'_>,
    facts: &mut FileFacts,
) {
    let manifest = &language.manifest;
    let parents = Parents(raw.flat.as_ref());
    let root = tree.root_node();
    if root.has_error() {
        let line = first_error_line(root);
        facts.diagnostics.push(sextant_model::Diagnostic {
            kind: sextant_model::DiagnosticKind::SyntaxError,
            message: "syntax error; facts near it may be missing".into(),
            line,
        });
    }
    if let Some(node) = raw.cut_short {
        facts.diagnostics.push(sextant_model::Diagnostic {
            kind: sextant_model::DiagnosticKind::QueryLimit,
            message: "a query pattern had too many ways to match this node; references here may be missing"
                .into(),
            line: node.start_position().row as u32 + 1,
        });
    }
    if let Some(package) = raw.package {
        let p = collapse(node_text(package, text), 200);
        if !p.is_empty() {
            facts.package = Some(p);
        }
    }

    // Containers, outermost first.
    enum Item {
        Def(usize),
        Scope(usize),
    }
    let mut items: Vec<(usize, usize, Item)> = Vec::new();
    for (i, d) in raw.defs.iter().enumerate() {
        items.push((d.node.start_byte(), d.node.end_byte(), Item::Def(i)));
    }
    for (i, s) in raw.scopes.iter().enumerate() {
        items.push((s.node.start_byte(), s.node.end_byte(), Item::Scope(i)));
    }
    items.sort_by_key(|(start, end, item)| {
        (
            *start,
            std::cmp::Reverse(*end),
            matches!(item, Item::Scope(_)),
        )
    });

    let mut containers: Vec<Container> = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
    if let Some(kind) = language.file_definition {
        let name = path.rsplit('/').next().unwrap_or(path).to_string();
        facts.definitions.push(Definition {
            kind,
            name: name.clone(),
            scope_path: Vec::new(),
            parent: None,
            span: span(root),
            name_span: Span::default(),
            signature: name,
            doc: None,
            visibility: Visibility::Public,
            modifiers: Vec::new(),
            complexity: None,
            type_text: None,
        });
        containers.push(Container {
            start: 0,
            end: text.len().max(root.end_byte()),
            path: Vec::new(),
            local: Some(0),
            kind: Some(kind),
        });
        stack.push(0);
    }

    let callable_nodes: rustc_hash::FxHashSet<usize> = raw
        .defs
        .iter()
        .filter(|d| d.kind.is_callable())
        .map(|d| d.node.id())
        .collect();
    let branch_counts = raw
        .branches
        .as_ref()
        .and_then(|branches| branch_counts(&raw.defs, branches));

    for (start, end, item) in items {
        while let Some(&top) = stack.last() {
            let c = &containers[top];
            if c.start <= start && end <= c.end {
                break;
            }
            stack.pop();
        }
        let parent = stack.last().map(|&i| &containers[i]);
        let parent_path: Vec<String> = parent.map(|c| c.path.clone()).unwrap_or_default();
        let parent_def = stack.iter().rev().find_map(|&i| containers[i].local);
        let in_type = parent.is_some_and(|c| c.kind.is_none_or(|k| k.is_type_like()));
        match item {
            Item::Scope(i) => {
                let scope = &raw.scopes[i];
                let cleaned = clean_type(node_text(scope.name, text));
                let segment = split_qualified(&cleaned).last().map(|s| s.to_string());
                let mut path = parent_path;
                path.extend(segment);
                containers.push(Container {
                    start,
                    end,
                    path,
                    local: None,
                    kind: None,
                });
                stack.push(containers.len() - 1);
            }
            Item::Def(i) => {
                let def = &raw.defs[i];
                let Some(name_node) = def.name else { continue };
                // Ruby `attr_reader :status` defines `status`; JS `#secret` is a private `secret`.
                let written = collapse(node_text(name_node, text), 200);
                let hash_private = written.starts_with('#');
                let name = written.trim_start_matches([':', '#']).to_string();
                if name.is_empty() {
                    continue;
                }
                let mut path = parent_path;
                let owner = def.owner.map(|o| clean_type(node_text(o, text)));
                if let Some(owner) = &owner {
                    path.extend(split_qualified(owner).iter().map(|s| s.to_string()));
                }
                path.push(name.clone());
                let kind = adjust_kind(language, def.kind, &name, in_type || owner.is_some());
                let local = facts.definitions.len() as LocalId;
                let outer = outermost_wrapper(language, def.node, parents);
                // Members of interfaces, traits and enums are as visible as their owner.
                let inherited = parent_def
                    .map(|p| &facts.definitions[p as usize])
                    .filter(|p| {
                        matches!(
                            p.kind,
                            NodeKind::Interface | NodeKind::Trait | NodeKind::Enum
                        )
                    })
                    .map(|p| p.visibility);
                let (mut visibility, modifiers) = visibility_and_modifiers(
                    language,
                    Site {
                        node: def.node,
                        outer,
                        name: &name,
                        top_level: parent_def.is_none() || !in_type,
                        member: in_type,
                        inherited,
                        name_id: Some(name_node.id()),
                        owner_kind: parent_def.map(|p| facts.definitions[p as usize].kind),
                    },
                    text,
                    parents,
                );
                if hash_private {
                    visibility = Visibility::Private;
                }
                let doc = documentation(language, def, outer, text, parents);
                // A callable without a body is a declaration (C prototype, trait or interface
                // method, abstract method, overload signature).
                let mut modifiers = modifiers;
                if kind.is_callable()
                    && kind != NodeKind::Macro
                    && def.body.is_none()
                    && def.node.child_by_field_name("body").is_none()
                {
                    modifiers.push("declaration".into());
                }
                let complexity = kind.is_callable().then(|| match &branch_counts {
                    Some(counts) => 1 + counts.get(&def.node.id()).copied().unwrap_or(0),
                    None => complexity(tools, def.node, &callable_nodes),
                });
                facts.definitions.push(Definition {
                    kind,
                    name,
                    scope_path: path.clone(),
                    parent: parent_def,
                    span: span(def.node),
                    name_span: span(name_node),
                    signature: signature(def, text),
                    doc,
                    visibility,
                    modifiers,
                    complexity,
                    type_text: def
                        .type_node
                        .map(|n| collapse(node_text(n, text), TYPE_MAX))
                        .filter(|t| !t.is_empty()),
                });
                containers.push(Container {
                    start,
                    end,
                    path,
                    local: Some(local),
                    kind: Some(kind),
                });
                stack.push(containers.len() - 1);
            }
        }
    }

    // Enclosing definitions of reference and import sites: a sweep over nested intervals.
    let def_ranges: Vec<(u32, u32, LocalId)> = {
        let mut v: Vec<_> = facts
            .definitions
            .iter()
            .enumerate()
            .map(|(i, d)| (d.span.start_byte, d.span.end_byte, i as LocalId))
            .collect();
        if language.file_definition.is_some() && !v.is_empty() {
            v[0].1 = u32::MAX;
        }
        v.sort_by_key(|(s, e, _)| (*s, std::cmp::Reverse(*e)));
        v
    };
    let mut enclosing = Enclosing::new(&def_ranges);
    for r in &raw.refs {
        // Types lose generics and sigils (`&mut Foo<T>` → `Foo`); other names keep `?`/`!`
        // (Ruby `valid?`, `save!`).
        let written = match r.kind {
            RefKind::Type | RefKind::Inherit | RefKind::Implement | RefKind::Instantiate => {
                clean_type(node_text(r.name, text))
            }
            _ => collapse(node_text(r.name, text), 200),
        };
        let parts = split_qualified(&written);
        let Some(last) = parts.last() else { continue };
        let name = last.to_string();
        let mut receiver = r
            .receiver
            .map(|n| collapse(node_text(n, text), RECEIVER_MAX));
        if receiver.is_none() && parts.len() > 1 {
            let sep = &manifest.separator;
            receiver = Some(parts[..parts.len() - 1].join(sep));
        }
        let site = span(r.name);
        facts.references.push(Reference {
            kind: r.kind,
            name,
            receiver,
            implementor: r.implementor.map(|n| clean_type(node_text(n, text))),
            enclosing: enclosing.at(site.start_byte),
            span: site,
        });
    }
    let mut enclosing = Enclosing::new(&def_ranges);
    for raw_import in &raw.imports {
        let site_node = raw_import
            .name
            .or(raw_import.source)
            .or(raw_import.tree)
            .unwrap_or(raw_import.node);
        let site = span(site_node);
        let at = enclosing.at(site.start_byte);
        for mut import in crate::imports::expand(language, raw_import, text) {
            import.span = site;
            import.enclosing = at;
            facts.imports.push(import);
        }
    }
    facts.imports.dedup_by(|a, b| a == b);
    let mut enclosing = Enclosing::new(&def_ranges);
    for b in &raw.bindings {
        let name = collapse(node_text(b.name, text), RECEIVER_MAX);
        if name.is_empty() {
            continue;
        }
        let mut at = enclosing.at(b.node.start_byte() as u32);
        // A binding that is itself a definition (`x = Store()` at module or class level) lives in
        // the definition's scope, not inside it.
        if let Some(d) = at
            && facts.definitions[d as usize].name_span.start_byte == b.name.start_byte() as u32
        {
            at = facts.definitions[d as usize].parent;
        }
        facts.bindings.push(sextant_model::Binding {
            name,
            type_text: b
                .type_node
                .map(|n| collapse(node_text(n, text), TYPE_MAX))
                .filter(|t| !t.is_empty()),
            value: b
                .value
                .map(|n| collapse(node_text(n, text), RECEIVER_MAX))
                .filter(|t| !t.is_empty()),
            enclosing: at,
            line: b.node.start_position().row as u32 + 1,
        });
    }
}

/// Drops plain-name reads and calls of a function's own locals (parameters, assignment targets):
/// they are not references to definitions, and most name reads are of locals. Walking out from
/// the site, the innermost function level that defines the name (a nested function) keeps the
/// reference; one that binds it as a local drops it. Levels that are not functions end the walk.
///
/// Then the untyped bindings nothing needs any more are dropped: a plain local matters to
/// resolution only as the head of a receiver (`x.get()` must not bind `x` to a global `x`).
pub(crate) fn prune_local_references(
    facts: &mut FileFacts,
    self_names: &[String],
    separate_call_names: bool,
) {
    if facts.bindings.is_empty() {
        return;
    }
    let locals: rustc_hash::FxHashSet<(LocalId, &str)> = facts
        .bindings
        .iter()
        .filter_map(|b| b.enclosing.map(|e| (e, b.name.as_str())))
        .collect();
    let children: rustc_hash::FxHashSet<(LocalId, &str)> = facts
        .definitions
        .iter()
        .filter_map(|d| d.parent.map(|p| (p, d.name.as_str())))
        .collect();
    let defs = &facts.definitions;
    let is_local = |r: &sextant_model::Reference| -> bool {
        if r.receiver.is_some()
            || !matches!(r.kind, RefKind::Read | RefKind::Call)
            || (separate_call_names && r.kind == RefKind::Call)
        {
            return false;
        }
        let mut at = r.enclosing;
        while let Some(d) = at {
            if !defs[d as usize].kind.is_callable() {
                return false;
            }
            if children.contains(&(d, r.name.as_str())) {
                return false;
            }
            if locals.contains(&(d, r.name.as_str())) {
                return true;
            }
            at = defs[d as usize].parent;
        }
        false
    };
    let keep: Vec<bool> = facts.references.iter().map(|r| !is_local(r)).collect();
    let mut i = 0;
    facts.references.retain(|_| {
        i += 1;
        keep[i - 1]
    });
    let heads: rustc_hash::FxHashSet<String> = facts
        .references
        .iter()
        .filter_map(|r| r.receiver.as_deref())
        .map(|recv| {
            let end = recv
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                .unwrap_or(recv.len());
            recv[..end].to_string()
        })
        .filter(|h| !h.is_empty() && !self_names.iter().any(|s| s == h))
        .collect();
    facts
        .bindings
        .retain(|b| b.type_text.is_some() || b.value.is_some() || heads.contains(&b.name));
}

/// Longest declared type kept, in bytes.
const TYPE_MAX: usize = 200;

/// Finds the innermost definition containing increasing byte offsets.
struct Enclosing<'a> {
    ranges: &'a [(u32, u32, LocalId)],
    next: usize,
    stack: Vec<(u32, u32, LocalId)>,
}

impl<'a> Enclosing<'a> {
    fn new(ranges: &'a [(u32, u32, LocalId)]) -> Self {
        Enclosing {
            ranges,
            next: 0,
            stack: Vec::new(),
        }
    }

    /// `offset` must not decrease between calls.
    fn at(&mut self, offset: u32) -> Option<LocalId> {
        while self.next < self.ranges.len() && self.ranges[self.next].0 <= offset {
            let r = self.ranges[self.next];
            while self.stack.last().is_some_and(|top| top.1 <= r.0) {
                self.stack.pop();
            }
            self.stack.push(r);
            self.next += 1;
        }
        while self.stack.last().is_some_and(|top| top.1 <= offset) {
            self.stack.pop();
        }
        // Ranges that do not contain the offset may sit below the top after overlaps: scan.
        self.stack
            .iter()
            .rev()
            .find(|(s, e, _)| *s <= offset && offset < *e)
            .map(|r| r.2)
    }
}

fn first_error_line(root: Node<'_>) -> u32 {
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if node.is_error() || node.is_missing() {
            return node.start_position().row as u32 + 1;
        }
        if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return root.start_position().row as u32 + 1;
            }
        }
    }
}

fn adjust_kind(language: &Language, kind: NodeKind, name: &str, in_type: bool) -> NodeKind {
    let rules = &language.manifest.definitions;
    let mut kind = kind;
    if kind == NodeKind::Function && in_type && rules.methods_inside_types {
        kind = NodeKind::Method;
    }
    if matches!(kind, NodeKind::Method | NodeKind::Function)
        && in_type
        && rules.constructor_names.iter().any(|c| c == name)
    {
        kind = NodeKind::Constructor;
    }
    if kind == NodeKind::Variable && in_type && rules.fields_inside_types {
        kind = NodeKind::Field;
    }
    if kind == NodeKind::Variable && rules.upper_case_constants && is_upper_case(name) {
        kind = NodeKind::Constant;
    }
    kind
}

/// The node itself or the outermost wrapper (`export_statement`, `decorated_definition`) around it.
fn outermost_wrapper<'t>(
    language: &Language,
    node: Node<'t>,
    parents: Parents<'_, 't>,
) -> Node<'t> {
    let doc = &language.manifest.doc;
    let vis = &language.manifest.visibility;
    let mut outer = node;
    while let Some(parent) = parents.of(outer) {
        let kind = parent.kind();
        if doc.wrapper_kinds.iter().any(|k| k == kind)
            || vis.export_wrappers.iter().any(|k| k == kind)
        {
            outer = parent;
        } else {
            break;
        }
    }
    outer
}

fn keyword_visibility(language: &Language, text: &str) -> Option<Visibility> {
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    language
        .keyword_visibility
        .iter()
        .filter(|(k, _)| compact.starts_with(k.as_str()))
        .max_by_key(|(k, _)| k.len())
        .map(|(_, v)| *v)
}

/// Where a definition sits, for visibility rules.
struct Site<'a, 't> {
    node: Node<'t>,
    outer: Node<'t>,
    name: &'a str,
    top_level: bool,
    member: bool,
    inherited: Option<Visibility>,
    /// The definition's name node, never a modifier (`fun open()`).
    name_id: Option<usize>,
    /// The kind of the type owning this member, if any.
    owner_kind: Option<NodeKind>,
}

fn visibility_and_modifiers<'t>(
    language: &Language,
    site: Site<'_, 't>,
    text: &str,
    parents: Parents<'_, 't>,
) -> (Visibility, Vec<String>) {
    let Site {
        node,
        outer,
        name,
        top_level,
        member,
        inherited,
        name_id,
        owner_kind,
    } = site;
    let vis = &language.manifest.visibility;
    let mods = &language.manifest.modifiers;
    let mut explicit: Option<Visibility> = None;
    let mut modifiers: Vec<String> = Vec::new();
    let mut exported = false;

    let mut holders = vec![node];
    let mut up = node;
    while up.id() != outer.id() {
        match parents.of(up) {
            Some(p) => {
                if vis.export_wrappers.iter().any(|k| k == p.kind()) {
                    exported = true;
                }
                holders.push(p);
                up = p;
            }
            None => break,
        }
    }
    let scan = |n: Node<'_>, explicit: &mut Option<Visibility>, modifiers: &mut Vec<String>| {
        let kind = n.kind();
        if mods.decorator_kinds.iter().any(|k| k == kind) {
            let t = collapse(node_text(n, text), 80);
            let t = t.trim_start_matches('@');
            modifiers.push(format!("@{t}"));
            return;
        }
        if vis.keyword_kinds.iter().any(|k| k == kind) {
            if let Some(v) = keyword_visibility(language, node_text(n, text)) {
                explicit.get_or_insert(v);
            }
            return;
        }
        if n.child_count() == 0 {
            let t = node_text(n, text);
            if let Some((_, v)) = language.keyword_visibility.iter().find(|(k, _)| k == t) {
                explicit.get_or_insert(*v);
            }
            if mods.keywords.iter().any(|k| k == t) && !modifiers.iter().any(|m| m == t) {
                modifiers.push(t.to_string());
            }
        }
    };
    for holder in &holders {
        let mut cursor = holder.walk();
        for child in holder.children(&mut cursor) {
            if child.id() == node.id() {
                continue;
            }
            if mods.containers.iter().any(|k| k == child.kind())
                || vis.modifier_containers.iter().any(|k| k == child.kind())
            {
                let mut inner = child.walk();
                for grandchild in child.children(&mut inner) {
                    scan(grandchild, &mut explicit, &mut modifiers);
                    // Keywords wrapped one level deeper (Kotlin `function_modifier > "suspend"`).
                    if grandchild.child_count() == 1
                        && let Some(leaf) = grandchild.child(0).filter(|l| l.child_count() == 0)
                    {
                        scan(leaf, &mut explicit, &mut modifiers);
                    }
                }
            } else if Some(child.id()) == name_id {
                continue;
            } else {
                scan(child, &mut explicit, &mut modifiers);
            }
        }
    }
    if exported && !modifiers.iter().any(|m| m == "export") {
        modifiers.insert(0, "export".into());
    }
    // Members of interfaces, traits and enums take their owner's visibility, unless the language
    // decides visibility by naming (Go: `reset()` in an exported interface is still unexported).
    let inherited = inherited.filter(|_| vis.convention.is_empty());
    if let Some(v) = explicit.or(inherited) {
        return (v, modifiers);
    }
    // Access labels (C++ `public:`) before the member in its container.
    if !vis.access_label_kinds.is_empty() {
        let mut sibling = outer.prev_sibling();
        while let Some(s) = sibling {
            if vis.access_label_kinds.iter().any(|k| k == s.kind()) {
                let label = node_text(s, text).trim().trim_end_matches(':').trim();
                if let Some(v) = keyword_visibility(language, label) {
                    return (v, modifiers);
                }
                break;
            }
            sibling = s.prev_sibling();
        }
    }
    if top_level && !vis.export_wrappers.is_empty() {
        let v = if exported {
            Visibility::Public
        } else {
            language.unexported_visibility
        };
        return (v, modifiers);
    }
    match vis.convention.as_str() {
        "underscore"
            if name.starts_with('_') && !(name.starts_with("__") && name.ends_with("__")) =>
        {
            return (Visibility::Private, modifiers);
        }
        "capitalized" => {
            let v = if name.chars().next().is_some_and(|c| c.is_uppercase()) {
                Visibility::Public
            } else {
                Visibility::Package
            };
            return (v, modifiers);
        }
        _ => {}
    }
    let v = if member {
        owner_kind
            .and_then(|k| language.member_defaults.iter().find(|(o, _)| *o == k))
            .map(|(_, v)| *v)
            .unwrap_or(language.member_default_visibility)
    } else {
        language.default_visibility
    };
    (v, modifiers)
}

fn documentation<'t>(
    language: &Language,
    def: &crate::collect::RawDef<'t>,
    outer: Node<'t>,
    text: &str,
    parents: Parents<'_, 't>,
) -> Option<String> {
    let rules = &language.manifest.doc;
    if let Some(doc) = def.doc {
        let d = clean_doc(node_text(doc, text));
        return (!d.is_empty()).then_some(d);
    }
    if rules.docstring {
        let body = def.body.or_else(|| def.node.child_by_field_name("body"));
        if let Some(first) = body.and_then(|b| b.named_child(0))
            && first.kind() == "expression_statement"
            && let Some(s) = first.named_child(0).filter(|s| s.kind() == "string")
        {
            let d = clean_doc(strip_string_prefix(node_text(s, text)));
            return (!d.is_empty()).then_some(d);
        }
    }
    if rules.comment_kinds.is_empty() {
        return None;
    }
    let mut comments: Vec<Node<'_>> = Vec::new();
    let mut next_start_row = outer.start_position().row;
    let mut sibling = outer.prev_sibling();
    // The first child of a body: its comments are written before the body.
    let mut first = outer;
    while sibling.is_none()
        && let Some(parent) = parents.of(first)
        && rules.first_child_of.iter().any(|k| k == parent.kind())
    {
        first = parent;
        sibling = parent.prev_sibling();
    }
    while let Some(s) = sibling {
        let kind = s.kind();
        if rules.skip_kinds.iter().any(|k| k == kind) {
            next_start_row = s.start_position().row;
            sibling = s.prev_sibling();
            continue;
        }
        if !rules.comment_kinds.iter().any(|k| k == kind) {
            break;
        }
        if s.end_position().row + 1 < next_start_row {
            break;
        }
        let t = node_text(s, text).trim_start();
        if !rules.prefixes.is_empty() && !rules.prefixes.iter().any(|p| t.starts_with(p.as_str())) {
            break;
        }
        comments.push(s);
        next_start_row = s.start_position().row;
        sibling = s.prev_sibling();
    }
    if comments.is_empty() {
        return None;
    }
    comments.reverse();
    let joined: Vec<&str> = comments.iter().map(|c| node_text(*c, text)).collect();
    let d = clean_doc(&joined.join("\n"));
    (!d.is_empty()).then_some(d)
}

fn strip_string_prefix(s: &str) -> &str {
    s.trim_start_matches(['r', 'R', 'u', 'U', 'b', 'B', 'f', 'F'])
}

fn signature(def: &crate::collect::RawDef<'_>, text: &str) -> String {
    let start = def.node.start_byte();
    let body = def.body.or_else(|| def.node.child_by_field_name("body"));
    let end = body
        .map(|b| b.start_byte())
        .filter(|&e| e > start)
        .unwrap_or(def.node.end_byte());
    let slice = text.get(start..end).unwrap_or("");
    let sig = collapse(slice, SIGNATURE_MAX);
    sig.trim_end_matches(|c: char| c == '{' || c == ':' || c == '=' || c.is_whitespace())
        .to_string()
}

/// Branch nodes by callable definition node id: what [`complexity`] counts, from the branch nodes
/// the query captured instead of a walk of every callable. A branch counts for the callable it is
/// in and not in a nested one: the innermost callable whose range contains its range. Ranges tell
/// nesting apart for nodes with bytes (unrelated ones are disjoint, an ancestor contains its
/// descendants); `None` (walk instead) when an empty node or two nodes with the same range are
/// involved.
fn branch_counts(
    defs: &[crate::collect::RawDef<'_>],
    branches: &[(u32, u32)],
) -> Option<rustc_hash::FxHashMap<usize, u32>> {
    let mut callables: Vec<(u32, u32, usize)> = defs
        .iter()
        .filter(|d| d.kind.is_callable())
        .map(|d| {
            (
                d.node.start_byte() as u32,
                d.node.end_byte() as u32,
                d.node.id(),
            )
        })
        .collect();
    callables.sort_unstable_by_key(|&(start, end, _)| (start, std::cmp::Reverse(end)));
    let spans: rustc_hash::FxHashSet<(u32, u32)> =
        callables.iter().map(|&(s, e, _)| (s, e)).collect();
    if spans.len() != callables.len() || callables.iter().any(|&(s, e, _)| s >= e) {
        return None;
    }
    let mut sorted = branches.to_vec();
    sorted.sort_unstable();
    if sorted
        .iter()
        .any(|&(s, e)| s >= e || spans.contains(&(s, e)))
    {
        return None;
    }
    let mut counts = rustc_hash::FxHashMap::default();
    // Callables whose start has been passed, each inside the one below it.
    let mut stack: Vec<(u32, u32, usize)> = Vec::new();
    let mut next = 0;
    for (start, end) in sorted {
        while let Some(&c) = callables.get(next).filter(|c| c.0 <= start) {
            while stack.last().is_some_and(|top| top.1 <= c.0) {
                stack.pop();
            }
            stack.push(c);
            next += 1;
        }
        while stack.last().is_some_and(|top| top.1 <= start) {
            stack.pop();
        }
        // A callable starting where the branch starts but ending earlier is inside it: skip it.
        if let Some(&(_, _, id)) = stack.iter().rev().find(|c| end <= c.1) {
            *counts.entry(id).or_insert(0) += 1;
        }
    }
    Some(counts)
}

/// Cyclomatic complexity: 1 + branch nodes, not counting nested callables.
fn complexity(tools: &Tools, node: Node<'_>, callables: &rustc_hash::FxHashSet<usize>) -> u32 {
    let mut count = 1u32;
    let mut cursor = node.walk();
    let root_id = node.id();
    loop {
        let n = cursor.node();
        let nested = n.id() != root_id && callables.contains(&n.id());
        if !nested {
            if tools
                .queries
                .complexity_kinds
                .get(n.kind_id() as usize)
                .copied()
                .unwrap_or(false)
            {
                count += 1;
            }
            if cursor.goto_first_child() {
                continue;
            }
        }
        loop {
            if cursor.node().id() == root_id {
                return count;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return count;
            }
        }
    }
}
