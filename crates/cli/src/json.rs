//! Engine results → JSON values (the CLI's DTOs, converted explicitly).

use serde_json::{Value, json};
use sextant_engine::*;

fn counts(c: &[(String, u64)]) -> Value {
    let mut map = serde_json::Map::new();
    for (k, v) in c {
        map.insert(k.clone(), json!(v));
    }
    Value::Object(map)
}

pub fn symbol(s: &Symbol) -> Value {
    json!({
        "id": s.stable_id,
        "kind": s.kind,
        "name": s.name,
        "qualified_name": s.qualified_name,
        "language": s.language,
        "path": s.path,
        "start_line": s.start_line,
        "end_line": s.end_line,
        "signature": s.signature,
        "doc": s.doc,
        "visibility": s.visibility,
        "modifiers": s.modifiers,
        "complexity": s.complexity,
    })
}

fn site(s: &Option<Site>) -> Value {
    match s {
        Some(s) => json!({"path": s.path, "line": s.line, "col": s.col}),
        None => Value::Null,
    }
}

pub fn neighbor(n: &Neighbor) -> Value {
    json!({
        "symbol": symbol(&n.symbol),
        "edge": n.edge_kind,
        "provenance": n.provenance,
        "confidence": n.confidence,
        "rule": n.rule,
        "site": site(&n.site),
    })
}

pub fn completeness(c: &Completeness) -> Value {
    match c {
        Completeness::Exact => json!({"status": "exact"}),
        Completeness::Unknown { reason } => json!({"status": "unknown", "reason": reason}),
        Completeness::LowerBound {
            unresolved,
            ambiguous,
            sample,
        } => json!({
            "status": "lower_bound",
            "unresolved_sites": unresolved,
            "ambiguous_edges": ambiguous,
            "sample": sample.iter().map(|u| json!({
                "path": u.site.path, "line": u.site.line, "col": u.site.col,
                "kind": u.kind, "name": u.name, "receiver": u.receiver,
                "reason": u.reason, "candidates": u.candidates,
            })).collect::<Vec<_>>(),
        }),
    }
}

pub fn index_summary(s: &IndexSummary) -> Value {
    json!({
        "root": s.root,
        "database": s.db_path,
        "generation": s.generation,
        "commit": s.commit,
        "branch": s.branch,
        "dirty": s.dirty,
        "files": {
            "indexed": s.files_indexed,
            "reused": s.files_reused,
            "hashed": s.files_hashed,
            "uncommitted": s.files_uncommitted,
            "with_syntax_errors": s.files_with_syntax_errors,
            "unsupported": s.ignored_files,
            "skipped": counts(&s.skipped),
        },
        "languages": counts(&s.languages),
        "bytes": s.bytes,
        "symbols": s.symbols,
        "references": s.references,
        "imports": s.imports,
        "edges": counts(&s.edges),
        "unresolved": counts(&s.unresolved),
        "resolution_shared_with": s.reused_generation,
        "edge_sets_shared": s.sets_shared,
        "cache": s.cache,
        "wall_seconds": s.wall_seconds,
        "mb_per_second": s.mb_per_second(),
        "phases": counts_f(&s.phases),
        "database_bytes": s.db_bytes,
        "scip": s.scip.as_ref().map(|x| json!({
            "tool": x.tool, "tool_version": x.tool_version,
            "documents_matched": x.documents_matched, "sites_asserted": x.sites_asserted,
            "sites_changed": x.sites_changed, "sites_external": x.sites_external,
            "sites_local": x.sites_local,
        })),
    })
}

pub fn counts_f(c: &[(String, f64)]) -> Value {
    let mut map = serde_json::Map::new();
    for (k, v) in c {
        map.insert(k.clone(), json!((v * 1000.0).round() / 1000.0));
    }
    Value::Object(map)
}

pub fn search(query: &str, hits: &[SearchHit]) -> Value {
    json!({
        "query": query,
        "count": hits.len(),
        "results": hits.iter().map(|h| {
            let mut v = symbol(&h.symbol);
            v["match"] = json!(h.matched);
            v
        }).collect::<Vec<_>>(),
    })
}

pub fn card(c: &SymbolCard) -> Value {
    json!({
        "symbol": symbol(&c.symbol),
        "parent": c.parent.as_ref().map(symbol),
        "members": c.members.iter().map(symbol).collect::<Vec<_>>(),
        "incoming": counts(&c.incoming),
        "outgoing": counts(&c.outgoing),
        "callers": c.callers.iter().map(neighbor).collect::<Vec<_>>(),
        "callees": c.callees.iter().map(neighbor).collect::<Vec<_>>(),
    })
}

pub fn references(r: &References) -> Value {
    json!({
        "symbol": symbol(&r.target),
        "count": r.references.len(),
        "references": r.references.iter().map(neighbor).collect::<Vec<_>>(),
        "completeness": completeness(&r.completeness),
    })
}

pub fn calls(g: &CallGraph) -> Value {
    json!({
        "symbol": symbol(&g.root),
        "direction": g.direction,
        "depth": g.depth,
        "truncated": g.truncated,
        "count": g.steps.len(),
        "results": g.steps.iter().map(|s| {
            let mut v = neighbor(&s.neighbor);
            v["depth"] = json!(s.depth);
            v
        }).collect::<Vec<_>>(),
        "completeness": completeness(&g.completeness),
    })
}

pub fn source(s: &SourceSpan) -> Value {
    json!({
        "path": s.path,
        "start_line": s.start_line,
        "end_line": s.end_line,
        "stale": s.stale,
        "symbol": s.symbol.as_ref().map(symbol),
        "text": s.text,
    })
}

pub fn status(s: &Status) -> Value {
    json!({
        "root": s.root,
        "data_dir": s.data_dir,
        "indexed": s.indexed,
        "generation": s.generation,
        "graph_commit": s.graph_commit,
        "graph_branch": s.graph_branch,
        "repo_commit": s.repo_commit,
        "repo_branch": s.repo_branch,
        "stale": s.stale,
        "indexed_at": s.indexed_at,
        "files": s.files,
        "uncommitted_files": s.uncommitted_files,
        "languages": counts(&s.languages),
        "skipped": counts(&s.skipped),
        "skipped_files": s.skipped_files.iter().map(|f| json!({"path": f.path, "reason": f.reason, "size": f.size})).collect::<Vec<_>>(),
        "database_bytes": s.db_bytes,
        "last_index": s.last_index.as_deref().and_then(|t| serde_json::from_str::<Value>(t).ok()),
    })
}

pub fn stats(s: &Stats) -> Value {
    json!({
        "nodes": counts(&s.nodes),
        "edges": counts(&s.edges),
        "references": counts(&s.references),
        "unresolved": counts(&s.unresolved),
        "languages": counts(&s.languages),
    })
}

pub fn error(kind: &str, message: &str, extra: Value) -> Value {
    json!({"error": {"kind": kind, "message": message, "details": extra}})
}

fn round(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

fn definition_score(d: &DefinitionScore) -> Value {
    json!({
        "sites": d.sites,
        "top1": round(d.top1_ratio()),
        "in_candidates": round(d.in_candidates_ratio()),
        "abstained": round(d.abstained_ratio()),
        "wrong": round(d.wrong_ratio()),
    })
}

fn precision_recall(p: &PrecisionRecall) -> Value {
    json!({
        "predicted": p.predicted, "predicted_correct": p.predicted_correct,
        "claimed": p.claimed, "claimed_correct": p.claimed_correct,
        "truth": p.truth, "truth_found": p.truth_found,
    })
}

pub fn eval(r: &EvalReport) -> Value {
    let mut languages = serde_json::Map::new();
    for (language, s) in &r.languages {
        let by_kind: serde_json::Map<String, Value> = s
            .by_ref_kind
            .iter()
            .map(|(k, d)| (k.clone(), definition_score(d)))
            .collect();
        let by_rule: serde_json::Map<String, Value> = s
            .by_rule
            .iter()
            .map(|(k, (ok, bad))| (k.clone(), json!({"correct": ok, "wrong": bad})))
            .collect();
        languages.insert(
            language.clone(),
            json!({
                "definition_top1": round(s.definition.top1_ratio()),
                "definition_in_candidates": round(s.definition.in_candidates_ratio()),
                "abstained": round(s.definition.abstained_ratio()),
                "wrong": round(s.definition.wrong_ratio()),
                "references_precision": round(s.references.precision()),
                "references_precision_claimed": round(s.references.claimed_precision()),
                "references_recall": round(s.references.recall()),
                "callers_precision": round(s.callers.precision()),
                "callers_precision_claimed": round(s.callers.claimed_precision()),
                "callers_recall": round(s.callers.recall()),
                "sites": s.definition.sites,
                "not_extracted": s.not_extracted,
                "symbols": s.symbols,
                "files": s.files,
                "counts": {
                    "definition": {
                        "top1": s.definition.top1, "in_candidates": s.definition.in_candidates,
                        "abstained": s.definition.abstained, "wrong": s.definition.wrong,
                    },
                    "references": precision_recall(&s.references),
                    "callers": precision_recall(&s.callers),
                },
                "by_ref_kind": by_kind,
                "by_rule": by_rule,
                "abstained_by_reason": s.abstained_by_reason,
            }),
        );
    }
    let c = &r.corpus;
    json!({
        "languages": languages,
        "corpus": {
            "scip_tool": c.scip_tool, "scip_tool_version": c.scip_tool_version,
            "scip_documents": c.scip_documents, "documents_matched": c.documents_matched,
            "scip_occurrences": c.scip_occurrences, "symbols_defined": c.symbols_defined,
            "symbols_mapped": c.symbols_mapped, "symbols_unmapped": c.symbols_unmapped,
            "sites_not_scored": c.sites_not_scored, "sites_external": c.sites_external, "sites_truth_undefined": c.sites_truth_undefined, "edges_unmatched": c.edges_unmatched,
            "generation": c.generation, "commit": c.commit,
        },
        "samples": r.samples.iter().map(|s| json!({
            "language": s.language, "outcome": s.outcome, "path": s.path, "line": s.line,
            "col": s.col, "name": s.name, "receiver": s.receiver, "ref_kind": s.ref_kind, "expected": s.expected,
            "got": s.got, "why": s.why,
        })).collect::<Vec<_>>(),
    })
}
