//! Scores the active generation against a SCIP index of the same source (compiler-grade ground
//! truth), per language, by site.
//!
//! Ground truth: a SCIP occurrence that is not a definition, whose symbol has a definition in the
//! index (an in-repository symbol) that maps to a Sextant node (same file, same name, the node's
//! span contains the definition's name). Locals, parameters, type parameters and modules are not
//! Sextant definitions and are counted separately.
//!
//! - `definition_*`: over ground-truth sites where Sextant extracted a reference at the same
//!   position: `top1` = its single claimed target (inferred/asserted) is the truth; `abstained` =
//!   ambiguous or unresolved; `wrong` = a claimed target that is not the truth;
//!   `in_candidates` = the truth is among its targets. Sites Sextant did not extract count in
//!   `not_extracted` (and against recall).
//! - `references_*` / `callers_*`: by site, edges against ground truth. Precision counts the
//!   edges at sites where SCIP has any occurrence (an edge to an in-repository node where SCIP
//!   says "external" or "local" is a false positive); recall counts ground-truth sites reached
//!   by an edge to the true node. Callers restrict edges to `calls` and truth to callables.

use std::collections::{BTreeMap, HashMap};

use sextant_scip::{Index, SymbolKind, symbol_info};
use sextant_store::{NodeBrief, RefBrief, RefEdge};

use crate::Result;
use crate::query::Repo;
use crate::scip_map::{SymbolMap, package_of};

/// Hits and totals for precision and recall.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PrecisionRecall {
    /// Edges at sites SCIP covers.
    pub predicted: u64,
    /// Of those, edges to the true node.
    pub predicted_correct: u64,
    /// Same, counting only edges that claim one target (`inferred`/`asserted`).
    pub claimed: u64,
    pub claimed_correct: u64,
    /// Ground-truth sites.
    pub truth: u64,
    /// Of those, reached by an edge to the true node.
    pub truth_found: u64,
}

impl PrecisionRecall {
    pub fn precision(&self) -> f64 {
        ratio(self.predicted_correct, self.predicted)
    }
    pub fn claimed_precision(&self) -> f64 {
        ratio(self.claimed_correct, self.claimed)
    }
    pub fn recall(&self) -> f64 {
        ratio(self.truth_found, self.truth)
    }
}

/// Definition outcomes over a set of sites.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DefinitionScore {
    pub sites: u64,
    pub top1: u64,
    pub in_candidates: u64,
    pub abstained: u64,
    pub wrong: u64,
}

impl DefinitionScore {
    pub fn top1_ratio(&self) -> f64 {
        ratio(self.top1, self.sites)
    }
    pub fn in_candidates_ratio(&self) -> f64 {
        ratio(self.in_candidates, self.sites)
    }
    pub fn abstained_ratio(&self) -> f64 {
        ratio(self.abstained, self.sites)
    }
    pub fn wrong_ratio(&self) -> f64 {
        ratio(self.wrong, self.sites)
    }
}

/// Scores for one language.
#[derive(Debug, Clone, Default)]
pub struct LanguageScore {
    /// Files present in both the index and the SCIP index.
    pub files: u64,
    /// In-repository SCIP symbols mapped to a Sextant node.
    pub symbols: u64,
    pub definition: DefinitionScore,
    /// Ground-truth sites where Sextant extracted no reference.
    pub not_extracted: u64,
    pub references: PrecisionRecall,
    pub callers: PrecisionRecall,
    /// Definition outcomes by reference kind (`call`, `type`, ...).
    pub by_ref_kind: BTreeMap<String, DefinitionScore>,
    /// Claimed targets by resolver rule: (correct, wrong).
    pub by_rule: BTreeMap<String, (u64, u64)>,
    /// Abstentions by reason (`ambiguous`, `no_candidates`, `external`, ...).
    pub abstained_by_reason: BTreeMap<String, u64>,
}

/// One site that went wrong, for diagnosis.
#[derive(Debug, Clone)]
pub struct EvalSample {
    pub language: String,
    /// `wrong`, `abstained`, `not_extracted`, `false_positive`.
    pub outcome: String,
    pub path: String,
    pub line: u32,
    pub col: u32,
    pub name: String,
    pub receiver: Option<String>,
    /// The reference kind Sextant extracted there (empty when none).
    pub ref_kind: String,
    /// The true target's qualified name (empty for a false positive at an external site).
    pub expected: String,
    /// What Sextant answered (qualified names), or the unresolved reason.
    pub got: Vec<String>,
    /// The rule or reason behind the answer.
    pub why: String,
}

/// The whole evaluation.
#[derive(Debug, Clone, Default)]
pub struct EvalReport {
    /// Keyed by Sextant's language ids.
    pub languages: BTreeMap<String, LanguageScore>,
    pub corpus: EvalCorpus,
    pub samples: Vec<EvalSample>,
}

/// What was compared.
#[derive(Debug, Clone, Default)]
pub struct EvalCorpus {
    pub scip_tool: String,
    pub scip_tool_version: String,
    pub scip_documents: u64,
    /// SCIP documents whose path is a file of the generation.
    pub documents_matched: u64,
    pub scip_occurrences: u64,
    /// In-repository symbols with a definition occurrence.
    pub symbols_defined: u64,
    pub symbols_mapped: u64,
    /// Defined symbols that map to no Sextant node, by SCIP kind.
    pub symbols_unmapped: BTreeMap<String, u64>,
    /// References to in-repository symbols Sextant does not model as definitions: locals,
    /// parameters, type parameters, modules, unmapped symbols (not scored).
    pub sites_not_scored: u64,
    /// References to symbols of the indexed package that the SCIP index never defines (not
    /// scored: the ground truth is missing).
    pub sites_truth_undefined: u64,
    /// References to symbols defined outside the repository (builtins, dependencies): not
    /// scored for recall; an edge there is a false positive.
    pub sites_external: u64,
    /// Sextant edges at positions where SCIP has no occurrence (not scored).
    pub edges_unmatched: u64,
    pub generation: i64,
    pub commit: Option<String>,
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// How far below its statement's first line an imported name may sit.
const IMPORT_LINES: u32 = 20;
const CALLABLE: &[&str] = &["function", "method", "constructor"];

fn claims(provenance: &str) -> bool {
    provenance == "inferred" || provenance == "asserted"
}

impl Repo {
    /// Scores the active generation against `index` (see the module docs for the metrics).
    pub fn evaluate(&self, index: &Index, samples_per_outcome: usize) -> Result<EvalReport> {
        let generation = self.generation();
        let files = self.store().files(generation)?;
        let nodes = self.store().generation_nodes(generation)?;
        let mut refs = self.store().generation_refs(generation)?;
        let mut edges = self.store().generation_ref_edges(generation)?;
        // Imported names are sites too; their edges are keyed by the negated import id.
        let import_start = refs.len();
        for i in self.store().generation_imports(generation)? {
            let Some(name) = i.name.clone().or(i.alias.clone()) else {
                continue;
            };
            refs.push(RefBrief {
                id: -i.id,
                file_id: i.file_id,
                src_id: 0,
                kind: "import".into(),
                name,
                receiver: i.alias,
                line: i.line,
                col: u32::MAX,
            });
        }
        for mut e in self.store().generation_import_edges(generation)? {
            e.ref_id = -e.ref_id;
            edges.push(e);
        }
        let unresolved: HashMap<i64, String> = self
            .store()
            .generation_unresolved(generation)?
            .into_iter()
            .collect();

        let file_by_path: HashMap<&str, (i64, &str)> = files
            .iter()
            .map(|f| (f.path.as_str(), (f.id, f.language.as_str())))
            .collect();
        let mut nodes_by_file: HashMap<i64, Vec<NodeBrief>> = HashMap::new();
        let language_of_file: HashMap<i64, &str> =
            files.iter().map(|f| (f.id, f.language.as_str())).collect();
        let mut node_by_id: HashMap<i64, (String, String, i64)> = HashMap::new();
        for n in nodes {
            node_by_id.insert(n.id, (n.qname.clone(), n.kind.clone(), n.file_id));
            nodes_by_file.entry(n.file_id).or_default().push(n);
        }
        let mut same_qname: HashMap<(i64, &str), Vec<i64>> = HashMap::new();
        for (id, (q, _, f)) in &node_by_id {
            same_qname.entry((*f, q.as_str())).or_default().push(*id);
        }
        let mut edges_by_ref: HashMap<i64, Vec<&RefEdge>> = HashMap::new();
        for e in &edges {
            edges_by_ref.entry(e.ref_id).or_default().push(e);
        }

        let mut report = EvalReport {
            corpus: EvalCorpus {
                scip_tool: index.tool.clone(),
                scip_tool_version: index.tool_version.clone(),
                scip_documents: index.documents.len() as u64,
                scip_occurrences: index.occurrence_count() as u64,
                generation,
                commit: self.commit()?,
                ..EvalCorpus::default()
            },
            ..EvalReport::default()
        };

        // 1. In-repository symbols → Sextant nodes.
        let map = SymbolMap::build(index, &file_by_path, &nodes_by_file);
        let SymbolMap {
            defined,
            own_packages,
            symbol_node,
            local_node,
            unmapped,
        } = &map;
        report.corpus.symbols_defined = defined.len() as u64;
        report.corpus.symbols_mapped = symbol_node.len() as u64;
        for s in unmapped {
            let kind = symbol_info(s).map_or(SymbolKind::Unknown, |i| i.kind);
            *report
                .corpus
                .symbols_unmapped
                .entry(kind.label().to_string())
                .or_default() += 1;
        }

        // 2. Sextant reference sites by position.
        let mut refs_at: HashMap<(i64, u32, u32), Vec<usize>> = HashMap::new();
        let mut refs_of_file: HashMap<i64, Vec<usize>> = HashMap::new();
        let mut imports_of_file: HashMap<i64, Vec<usize>> = HashMap::new();
        for (i, r) in refs.iter().enumerate() {
            if i >= import_start {
                imports_of_file.entry(r.file_id).or_default().push(i);
                continue;
            }
            refs_at
                .entry((r.file_id, r.line, r.col))
                .or_default()
                .push(i);
            refs_of_file.entry(r.file_id).or_default().push(i);
        }
        // A truth site with no reference at its position may be a name in an import statement
        // (imports record where their statement starts): the nearest import of that name at
        // most a few lines above.
        let import_site = |file_id: i64, line: u32, symbols: &[&str]| -> Option<Vec<usize>> {
            let names: Vec<String> = symbols
                .iter()
                .filter_map(|s| symbol_info(s).map(|i| i.name))
                .collect();
            imports_of_file
                .get(&file_id)?
                .iter()
                .copied()
                .filter(|&i| {
                    let r = &refs[i];
                    r.line <= line && line <= r.line + IMPORT_LINES && names.contains(&r.name)
                })
                .max_by_key(|&i| refs[i].line)
                .map(|i| vec![i])
        };

        let mut samples: BTreeMap<(String, String), Vec<EvalSample>> = BTreeMap::new();
        let mut sample = |s: EvalSample| {
            let list = samples
                .entry((s.language.clone(), s.outcome.clone()))
                .or_default();
            if list.len() < samples_per_outcome {
                list.push(s);
            }
        };
        let qname = |id: i64| {
            node_by_id
                .get(&id)
                .map(|(q, _, _)| q.clone())
                .unwrap_or_default()
        };

        for (doc_index, doc) in index.documents.iter().enumerate() {
            let Some(&(file_id, language)) = file_by_path.get(doc.path.as_str()) else {
                continue;
            };
            report.corpus.documents_matched += 1;
            let score = report.languages.entry(language.to_string()).or_default();
            score.files += 1;

            // Truth at each position of this document (non-definition occurrences).
            let mut truth_at: BTreeMap<(u32, u32), Vec<&str>> = BTreeMap::new();
            for occ in doc.occurrences.iter().filter(|o| !o.definition) {
                truth_at
                    .entry((occ.line, occ.col))
                    .or_default()
                    .push(occ.symbol.as_str());
            }

            for (&(line, col), symbols) in &truth_at {
                // Nodes with the same qualified name in the same file are one symbol
                // (overload stubs and their implementation, conditional redefinitions).
                let mut targets: Vec<i64> = Vec::new();
                let locals: Vec<i64> = symbols
                    .iter()
                    .filter_map(|s| local_node.get(&(doc_index, *s)).copied())
                    .collect();
                for t in symbols
                    .iter()
                    .filter_map(|s| symbol_node.get(s))
                    .flatten()
                    .chain(locals.iter())
                {
                    if let Some((q, _, f)) = node_by_id.get(t) {
                        for &same in same_qname.get(&(*f, q.as_str())).into_iter().flatten() {
                            if !targets.contains(&same) {
                                targets.push(same);
                            }
                        }
                    }
                }
                let site_refs: Option<Vec<usize>> = refs_at
                    .get(&(file_id, line, col))
                    .cloned()
                    .or_else(|| import_site(file_id, line, symbols));
                let site_refs = site_refs.as_deref();
                let site_edges: Vec<&RefEdge> = site_refs
                    .into_iter()
                    .flatten()
                    .flat_map(|&i| edges_by_ref.get(&refs[i].id).into_iter().flatten())
                    .copied()
                    .collect();

                // Precision: every edge at a site SCIP covers, where SCIP's answer can be
                // compared: an in-repository definition Sextant models, something outside the
                // repository, or a local variable. Sites naming symbols Sextant does not model
                // (object-literal members, parameters of other files) and edges to modules (SCIP
                // has no module definitions to compare with) are not scored.
                let comparable = !targets.is_empty()
                    || symbols.iter().all(|s| map.is_external(s))
                    || symbols
                        .iter()
                        .any(|s| symbol_info(s).is_some_and(|i| i.kind == SymbolKind::Local));
                for e in site_edges.iter().filter(|e| {
                    comparable && node_by_id.get(&e.dst).is_none_or(|(_, k, _)| k != "file")
                }) {
                    let correct = targets.contains(&e.dst);
                    let is_call = e.kind == "calls";
                    for (pr, applies) in
                        [(&mut score.references, true), (&mut score.callers, is_call)]
                    {
                        if !applies {
                            continue;
                        }
                        pr.predicted += 1;
                        pr.predicted_correct += u64::from(correct);
                        if claims(&e.provenance) {
                            pr.claimed += 1;
                            pr.claimed_correct += u64::from(correct);
                        }
                    }
                    if !correct && targets.is_empty() && claims(&e.provenance) {
                        let r = &refs[site_refs.map_or(0, |v| v[0])];
                        sample(EvalSample {
                            language: language.to_string(),
                            outcome: "false_positive".into(),
                            path: doc.path.clone(),
                            line,
                            col,
                            name: r.name.clone(),
                            receiver: r.receiver.clone(),
                            ref_kind: r.kind.clone(),
                            expected: symbols.first().map(|s| s.to_string()).unwrap_or_default(),
                            got: vec![qname(e.dst)],
                            why: e.rule.clone(),
                        });
                    }
                }

                // A symbol of the indexed package that the index never defines (an indexer
                // quirk: proxies, re-export aliases) is no ground truth either way.
                if targets.is_empty()
                    && symbols
                        .iter()
                        .any(|s| !defined.contains(s) && own_packages.contains(package_of(s)))
                {
                    report.corpus.sites_truth_undefined += 1;
                    continue;
                }
                if targets.is_empty() {
                    if symbols.iter().all(|s| map.is_external(s)) {
                        report.corpus.sites_external += 1;
                    } else {
                        report.corpus.sites_not_scored += 1;
                    }
                    continue;
                }

                // Recall.
                let found = site_edges.iter().any(|e| targets.contains(&e.dst));
                score.references.truth += 1;
                score.references.truth_found += u64::from(found);
                // Call sites are told by syntax: a site Sextant extracted as a read, a type, an
                // import or an inheritance clause is not a call whatever it resolves to.
                let not_a_call = site_refs.is_some_and(|v| {
                    v.iter().all(|&i| {
                        matches!(
                            refs[i].kind.as_str(),
                            "import" | "read" | "write" | "type" | "inherit" | "implement"
                        )
                    })
                });
                let callable = !not_a_call
                    && targets.iter().any(|t| {
                        node_by_id
                            .get(t)
                            .is_some_and(|(_, k, _)| CALLABLE.contains(&k.as_str()))
                    });
                if callable {
                    score.callers.truth += 1;
                    score.callers.truth_found += u64::from(
                        site_edges
                            .iter()
                            .any(|e| e.kind == "calls" && targets.contains(&e.dst)),
                    );
                }

                // Definition outcome.
                let Some(site_refs) = site_refs else {
                    score.not_extracted += 1;
                    sample(EvalSample {
                        language: language.to_string(),
                        outcome: "not_extracted".into(),
                        path: doc.path.clone(),
                        line,
                        col,
                        name: String::new(),
                        receiver: None,
                        ref_kind: String::new(),
                        expected: qname(targets[0]),
                        got: Vec::new(),
                        why: String::new(),
                    });
                    continue;
                };
                let r = &refs[site_refs[0]];
                let claimed: Vec<&&RefEdge> = site_edges
                    .iter()
                    .filter(|e| claims(&e.provenance))
                    .collect();
                let in_candidates = found;
                let (outcome, why) = if claimed.len() == 1 {
                    let e = claimed[0];
                    let entry = score.by_rule.entry(e.rule.clone()).or_default();
                    if targets.contains(&e.dst) {
                        entry.0 += 1;
                        ("top1", e.rule.clone())
                    } else {
                        entry.1 += 1;
                        ("wrong", e.rule.clone())
                    }
                } else if claimed.len() > 1 {
                    ("wrong", "several claimed targets".to_string())
                } else if !site_edges.is_empty() {
                    ("abstained", "ambiguous".to_string())
                } else {
                    let reason = site_refs
                        .iter()
                        .find_map(|&i| unresolved.get(&refs[i].id).cloned())
                        .unwrap_or_else(|| "no_edge".to_string());
                    ("abstained", reason)
                };
                let kind_score = score.by_ref_kind.entry(r.kind.clone()).or_default();
                for d in [&mut score.definition, kind_score] {
                    d.sites += 1;
                    d.in_candidates += u64::from(in_candidates);
                    match outcome {
                        "top1" => d.top1 += 1,
                        "wrong" => d.wrong += 1,
                        _ => d.abstained += 1,
                    }
                }
                if outcome == "abstained" {
                    *score.abstained_by_reason.entry(why.clone()).or_default() += 1;
                }
                if outcome != "top1" {
                    sample(EvalSample {
                        language: language.to_string(),
                        outcome: outcome.to_string(),
                        path: doc.path.clone(),
                        line,
                        col,
                        name: r.name.clone(),
                        receiver: r.receiver.clone(),
                        ref_kind: r.kind.clone(),
                        expected: qname(targets[0]),
                        got: site_edges.iter().map(|e| qname(e.dst)).collect(),
                        why,
                    });
                }
            }

            // Edges at positions SCIP does not cover at all.
            for r in refs_of_file
                .get(&file_id)
                .into_iter()
                .flatten()
                .map(|&i| &refs[i])
            {
                if !truth_at.contains_key(&(r.line, r.col)) {
                    report.corpus.edges_unmatched +=
                        edges_by_ref.get(&r.id).map_or(0, |v| v.len() as u64);
                }
            }
        }
        for nodes in symbol_node.values() {
            let language = node_by_id
                .get(&nodes[0])
                .and_then(|(_, _, f)| language_of_file.get(f));
            if let Some(language) = language {
                report
                    .languages
                    .entry(language.to_string())
                    .or_default()
                    .symbols += 1;
            }
        }
        report.samples = samples.into_values().flatten().collect();
        Ok(report)
    }
}

/// Reads a SCIP index file (for surfaces, which do no file I/O themselves).
pub fn read_scip(path: &std::path::Path) -> Result<Index> {
    Ok(sextant_scip::read(path)?)
}
