//! SCIP ingestion: where a precise index covers a reference site, its answer replaces the
//! heuristic one. A site whose SCIP symbol maps to a node gets one `asserted` edge (rule `scip`);
//! a site SCIP says is outside the repository becomes unresolved `external`, a local variable
//! unresolved `local`. Sites SCIP does not cover, or covers with a symbol Sextant does not model,
//! keep the heuristic answer.

use std::collections::HashMap;

use sextant_model::{Confidence, NodeKind, Provenance, RefKind};
use sextant_resolve as resolve;
use sextant_scip::{Index, SymbolKind, symbol_info};
use sextant_store::{NodeBrief, RefBrief, Store};

use crate::Result;
use crate::scip_map::SymbolMap;

/// What ingestion changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ScipSummary {
    pub tool: String,
    pub tool_version: String,
    /// SCIP documents that are files of the generation.
    pub documents_matched: u64,
    /// Reference sites now answered by SCIP with an `asserted` edge.
    pub sites_asserted: u64,
    /// Of those, sites where the heuristic answer differed (other target, ambiguous, unresolved).
    pub sites_changed: u64,
    /// Sites SCIP places outside the repository (now unresolved `external`).
    pub sites_external: u64,
    /// Sites SCIP says are local variables (now unresolved `local`).
    pub sites_local: u64,
}

enum Answer {
    Node(i64),
    External,
    Local,
}

/// Replaces heuristic answers in `output` with the index's where it covers a site.
pub(crate) fn merge(
    store: &Store,
    generation: i64,
    index: &Index,
    output: &mut resolve::Output,
) -> Result<ScipSummary> {
    let files = store.files(generation)?;
    let nodes = store.generation_nodes(generation)?;
    let refs = store.generation_refs(generation)?;
    let file_by_path: HashMap<&str, (i64, &str)> = files
        .iter()
        .map(|f| (f.path.as_str(), (f.id, f.language.as_str())))
        .collect();
    let mut kind_of: HashMap<i64, NodeKind> = HashMap::new();
    let mut nodes_by_file: HashMap<i64, Vec<NodeBrief>> = HashMap::new();
    for n in nodes {
        kind_of.insert(n.id, NodeKind::parse(&n.kind).unwrap_or(NodeKind::Variable));
        nodes_by_file.entry(n.file_id).or_default().push(n);
    }
    let map = SymbolMap::build(index, &file_by_path, &nodes_by_file);
    let mut refs_at: HashMap<(i64, u32, u32), Vec<&RefBrief>> = HashMap::new();
    for r in &refs {
        refs_at
            .entry((r.file_id, r.line, r.col))
            .or_default()
            .push(r);
    }

    let mut summary = ScipSummary {
        tool: index.tool.clone(),
        tool_version: index.tool_version.clone(),
        ..ScipSummary::default()
    };
    // Per reference: the best answer SCIP gives at its site (a node beats external/local).
    let mut answers: HashMap<i64, (Answer, &RefBrief)> = HashMap::new();
    for (doc_index, doc) in index.documents.iter().enumerate() {
        let Some(&(file_id, _)) = file_by_path.get(doc.path.as_str()) else {
            continue;
        };
        summary.documents_matched += 1;
        for occ in doc.occurrences.iter().filter(|o| !o.definition) {
            let Some(site) = refs_at.get(&(file_id, occ.line, occ.col)) else {
                continue;
            };
            let answer = if let Some(&n) = map.nodes(doc_index, &occ.symbol).first() {
                Answer::Node(n)
            } else if map.is_external(&occ.symbol) {
                Answer::External
            } else if symbol_info(&occ.symbol).is_some_and(|i| i.kind == SymbolKind::Local) {
                Answer::Local
            } else {
                continue;
            };
            for r in site {
                let better = match answers.get(&r.id) {
                    None => true,
                    Some((Answer::Node(_), _)) => false,
                    Some(_) => matches!(answer, Answer::Node(_)),
                };
                if better {
                    let a = match &answer {
                        Answer::Node(n) => Answer::Node(*n),
                        Answer::External => Answer::External,
                        Answer::Local => Answer::Local,
                    };
                    answers.insert(r.id, (a, r));
                }
            }
        }
    }
    if answers.is_empty() {
        return Ok(summary);
    }

    // What the heuristic said, to count changes.
    let mut before: HashMap<i64, Vec<(i64, Provenance)>> = HashMap::new();
    for e in &output.edges {
        if let Some(id) = e.ref_id
            && answers.contains_key(&id)
        {
            before.entry(id).or_default().push((e.dst, e.provenance));
        }
    }
    output
        .edges
        .retain(|e| e.ref_id.is_none_or(|id| !answers.contains_key(&id)));
    output
        .unresolved
        .retain(|u| !answers.contains_key(&u.ref_id));
    let mut ids: Vec<i64> = answers.keys().copied().collect();
    ids.sort_unstable();
    for id in ids {
        let (answer, r) = &answers[&id];
        let kind = RefKind::parse(&r.kind).unwrap_or(RefKind::Read);
        match answer {
            Answer::Node(dst) => {
                let edge_kind = if kind == RefKind::Call
                    && kind_of.get(dst).is_some_and(|k| k.is_type_like())
                {
                    sextant_model::EdgeKind::Instantiates
                } else {
                    kind.edge_kind()
                };
                let same = before.get(&id).is_some_and(|b| {
                    b.len() == 1 && b[0].0 == *dst && b[0].1 == Provenance::Inferred
                });
                summary.sites_asserted += 1;
                summary.sites_changed += u64::from(!same);
                output.edges.push(resolve::Edge {
                    src: r.src_id,
                    dst: *dst,
                    kind: edge_kind,
                    provenance: Provenance::Asserted,
                    confidence: Confidence::High,
                    rule: "scip",
                    ref_id: Some(id),
                    import_id: None,
                });
            }
            Answer::External | Answer::Local => {
                let reason = if matches!(answer, Answer::External) {
                    summary.sites_external += 1;
                    "external"
                } else {
                    summary.sites_local += 1;
                    "local"
                };
                output.unresolved.push(resolve::Unresolved {
                    ref_id: id,
                    reason,
                    candidates: 0,
                });
            }
        }
    }
    Ok(summary)
}
