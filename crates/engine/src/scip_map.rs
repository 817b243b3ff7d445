//! Maps the symbols of a SCIP index to the nodes of a generation: a definition occurrence names
//! the innermost node with the same name whose span contains it; document-local definitions
//! (`local 9`: functions nested in functions, module-private constants) name the node whose name
//! sits exactly there. Shared by evaluation and SCIP ingestion.

use std::collections::{HashMap, HashSet};

use sextant_scip::{Index, SymbolKind, symbol_info};
use sextant_store::NodeBrief;

/// SCIP symbols → Sextant nodes.
pub(crate) struct SymbolMap<'a> {
    /// Symbols with a definition occurrence in the index.
    pub defined: HashSet<&'a str>,
    /// `scheme manager name version` of the defined global symbols.
    pub own_packages: HashSet<&'a str>,
    /// Global symbols → nodes (several for overloads and declaration merging).
    pub symbol_node: HashMap<&'a str, Vec<i64>>,
    /// (document index, local symbol) → node.
    pub local_node: HashMap<(usize, &'a str), i64>,
    /// Defined global symbols of definition kinds that map to no node.
    pub unmapped: HashSet<&'a str>,
}

impl<'a> SymbolMap<'a> {
    /// `file_by_path`: path → (file id, language); `nodes_by_file`: the generation's nodes.
    pub fn build(
        index: &'a Index,
        file_by_path: &HashMap<&str, (i64, &str)>,
        nodes_by_file: &HashMap<i64, Vec<NodeBrief>>,
    ) -> SymbolMap<'a> {
        let defined = index.defined_symbols();
        let own_packages: HashSet<&str> = defined
            .iter()
            .filter(|s| !s.starts_with("local "))
            .map(|s| package_of(s))
            .collect();
        let mut symbol_node: HashMap<&str, Vec<i64>> = HashMap::new();
        let mut unmapped: HashSet<&str> = HashSet::new();
        let mut local_node: HashMap<(usize, &str), i64> = HashMap::new();
        for (doc_index, doc) in index.documents.iter().enumerate() {
            let Some(&(file_id, _)) = file_by_path.get(doc.path.as_str()) else {
                continue;
            };
            let file_nodes = nodes_by_file
                .get(&file_id)
                .map(Vec::as_slice)
                .unwrap_or(&[]);
            for occ in doc.occurrences.iter().filter(|o| o.definition) {
                let Some(info) = symbol_info(&occ.symbol) else {
                    continue;
                };
                if info.kind == SymbolKind::Local {
                    if let Some(n) = map_local_definition(file_nodes, occ.line, occ.col) {
                        local_node.insert((doc_index, occ.symbol.as_str()), n.id);
                    }
                    continue;
                }
                if !info.kind.is_definition_kind() {
                    continue;
                }
                match map_definition(file_nodes, &info.name, occ.line, occ.col) {
                    Some(n) => {
                        let nodes = symbol_node.entry(occ.symbol.as_str()).or_default();
                        if !nodes.contains(&n.id) {
                            nodes.push(n.id);
                        }
                        unmapped.remove(occ.symbol.as_str());
                    }
                    None => {
                        if !symbol_node.contains_key(occ.symbol.as_str()) {
                            unmapped.insert(occ.symbol.as_str());
                        }
                    }
                }
            }
        }
        SymbolMap {
            defined,
            own_packages,
            symbol_node,
            local_node,
            unmapped,
        }
    }

    /// The nodes a symbol occurring in document `doc_index` denotes.
    pub fn nodes(&self, doc_index: usize, symbol: &str) -> Vec<i64> {
        let mut out: Vec<i64> = self.symbol_node.get(symbol).cloned().unwrap_or_default();
        if let Some(&n) = self.local_node.get(&(doc_index, symbol)) {
            out.push(n);
        }
        out
    }

    /// Defined outside the index (a dependency, the standard library, a built-in).
    pub fn is_external(&self, symbol: &str) -> bool {
        !self.defined.contains(symbol) && !self.own_packages.contains(package_of(symbol))
    }
}

/// `scheme manager name version` of a global symbol.
pub(crate) fn package_of(symbol: &str) -> &str {
    let mut spaces = 0;
    for (i, c) in symbol.char_indices() {
        if c == ' ' {
            spaces += 1;
            if spaces == 4 {
                return &symbol[..i];
            }
        }
    }
    symbol
}

/// The node a definition occurrence names: same name, span containing the position, innermost.
pub(crate) fn map_definition<'a>(
    nodes: &'a [NodeBrief],
    name: &str,
    line: u32,
    col: u32,
) -> Option<&'a NodeBrief> {
    let contains = |n: &NodeBrief| n.start <= (line, col) && (line, col) <= n.end;
    let size = |n: &NodeBrief| (n.end.0 - n.start.0, n.end.1.wrapping_sub(n.start.1));
    nodes
        .iter()
        .filter(|n| n.kind != "file" && n.name == name && contains(n))
        .min_by_key(|n| size(n))
        .or_else(|| {
            nodes
                .iter()
                .filter(|n| n.kind != "file" && n.name == name && n.start.0 == line)
                .min_by_key(|n| size(n))
        })
}

/// The nested definition a document-local definition names: a callable or type starting on
/// that line and containing the position, innermost.
pub(crate) fn map_local_definition(nodes: &[NodeBrief], line: u32, col: u32) -> Option<&NodeBrief> {
    nodes
        .iter()
        .filter(|n| {
            // The name sits where the signature (which starts at the node) has it.
            let name_col = n
                .signature
                .find(n.name.as_str())
                .map(|o| n.start.1 + o as u32);
            n.start.0 == line
                && name_col == Some(col)
                && matches!(
                    n.kind.as_str(),
                    "function"
                        | "method"
                        | "class"
                        | "interface"
                        | "enum"
                        | "type_alias"
                        | "variable"
                        | "constant"
                )
        })
        .min_by_key(|n| (n.end.0 - n.start.0, n.end.1))
}
