//! Turning import captures into [`Import`]s, including nested Rust `use` trees.

use sextant_lang::Language;
use sextant_model::Import;
use tree_sitter::Node;

use crate::collect::RawImport;

fn node_text<'a>(node: Node<'_>, text: &'a str) -> &'a str {
    text.get(node.byte_range()).unwrap_or("")
}

fn strip(text: &str, chars: &str) -> String {
    let t = text.trim();
    if chars.is_empty() {
        return t.to_string();
    }
    t.trim_matches(|c| chars.contains(c)).to_string()
}

/// One raw import capture → zero or more imports (without span/enclosing, set by the caller).
pub(crate) fn expand(language: &Language, raw: &RawImport<'_>, text: &str) -> Vec<Import> {
    let rules = &language.manifest.imports;
    let mut out = Vec::new();
    let blank =
        |source: String, name: Option<String>, alias: Option<String>, wildcard: bool| Import {
            source,
            name,
            alias,
            wildcard,
            enclosing: None,
            span: Default::default(),
        };
    if let Some(tree) = raw.tree {
        if rules.tree_style == "rust" {
            expand_rust(tree, text, "", &mut out);
        }
        return out;
    }
    let source = raw
        .source
        .map(|n| strip(node_text(n, text), &rules.strip))
        .unwrap_or_default();
    let name = raw
        .name
        .map(|n| strip(node_text(n, text), &rules.strip))
        .or_else(|| raw.fixed_name.clone());
    let alias = raw.alias.map(|n| node_text(n, text).trim().to_string());
    if source.is_empty() && name.is_none() {
        return out;
    }
    out.push(blank(source, name, alias, raw.wildcard));
    out
}

fn join(prefix: &str, rest: &str) -> String {
    match (prefix.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_string(),
        (_, true) => prefix.to_string(),
        _ => format!("{prefix}::{rest}"),
    }
}

fn push_path(full: &str, alias: Option<String>, out: &mut Vec<Import>) {
    let (source, name) = match full.rsplit_once("::") {
        Some((source, name)) => (source.to_string(), Some(name.to_string())),
        None => (full.to_string(), None),
    };
    out.push(Import {
        source,
        name,
        alias,
        wildcard: false,
        enclosing: None,
        span: Default::default(),
    });
}

fn expand_rust(node: Node<'_>, text: &str, prefix: &str, out: &mut Vec<Import>) {
    let compact = |n: Node<'_>| -> String {
        node_text(n, text)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect()
    };
    match node.kind() {
        "scoped_use_list" => {
            let path = node
                .child_by_field_name("path")
                .map(compact)
                .unwrap_or_default();
            let new_prefix = join(prefix, &path);
            if let Some(list) = node.child_by_field_name("list") {
                expand_rust(list, text, &new_prefix, out);
            }
        }
        "use_list" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                expand_rust(child, text, prefix, out);
            }
        }
        "use_as_clause" => {
            let path = node
                .child_by_field_name("path")
                .map(compact)
                .unwrap_or_default();
            let alias = node.child_by_field_name("alias").map(compact);
            push_path(&join(prefix, &path), alias, out);
        }
        "use_wildcard" => {
            let full = compact(node);
            let base = full.trim_end_matches('*').trim_end_matches("::");
            out.push(Import {
                source: join(prefix, base),
                name: None,
                alias: None,
                wildcard: true,
                enclosing: None,
                span: Default::default(),
            });
        }
        "self" if !prefix.is_empty() => push_path(prefix, None, out),
        "line_comment" | "block_comment" => {}
        _ => push_path(&join(prefix, &compact(node)), None, out),
    }
}
