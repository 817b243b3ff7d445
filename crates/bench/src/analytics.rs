//! `sextant-bench analytics`: graph analytics and Cypher latency over an indexed repository
//! (issue 6), in-process through the public engine API.
//!
//! Cold runs: the repository's `index.db` (and its WAL) is copied into a fresh data home
//! without `derived.db`, so the first calls find no cached PageRank, betweenness or community
//! membership, and the graph is loaded for a database path this process has not seen. Each cold
//! run times, in order: `Repo::open_in`, `Repo::graph` (the graph load), `central` (PageRank,
//! cold), `central` again (warm: read from `derived.db`), `communities` (Louvain cold; PageRank
//! is then cached), `communities` again (warm), `bridges` (betweenness cold) and `bridges` again.
//! Medians over the runs are reported, with the engine's own `compute_ms`.
//!
//! Cypher: a fixed set of typical queries, each run with `--samples` parameter values drawn
//! deterministically from the graph (an untimed candidate query lists every possible value with
//! its path and line; they are sorted and taken at equal strides, so common names come up as
//! often as they occur), through `Repo::query_with_params` with the CLI's defaults (200 rows,
//! 1 MiB of output, 30 s deadline). Variable-length `*1..5` call patterns start from sampled
//! callables that call something: once over all of them, once over those outside test code.
//! Percentiles are nearest-rank over the measurements.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use serde_json::{Map, Value, json};
use sextant_engine::{DataDir, Repo, is_test_path, repo_data_dir};

use crate::stats::{Timings, percentile};

/// One timed query: its text, the parameter it takes and where the values come from.
struct Spec {
    name: &'static str,
    /// What it stands for, for the report.
    about: &'static str,
    text: &'static str,
    /// `$p` values: an untimed query returning (value, path, line) rows.
    candidates: &'static str,
    /// How a candidate value becomes the parameter.
    transform: Transform,
    /// Only candidates outside test code (`is_test_path`).
    product_only: bool,
}

#[derive(Clone, Copy)]
enum Transform {
    Same,
    /// A file path → a regex for the files of its directory.
    DirRegex,
}

fn typical() -> Vec<Spec> {
    vec![
        Spec {
            name: "type_members",
            about: "1 hop, label union, name filter: types holding a method of that name",
            text: "MATCH (c:Class|Struct|Interface|Trait|Enum)-[:CONTAINS]->(m:Method) WHERE m.name = $p RETURN c.qualified_name LIMIT 20",
            candidates: "MATCH (c:Class|Struct|Interface|Trait|Enum)-[:CONTAINS]->(m:Method) RETURN m.name, m.path, m.line",
            transform: Transform::Same,
            product_only: false,
        },
        Spec {
            name: "callers",
            about: "1 hop: callers of functions named $p (functions with a caller sampled)",
            text: "MATCH (f)-[:CALLS]->(g:Function) WHERE g.name = $p RETURN f.name",
            candidates: "MATCH (g:Function) WHERE (g)<-[:CALLS]-() RETURN g.name, g.path, g.line",
            transform: Transform::Same,
            product_only: false,
        },
        Spec {
            name: "callees_2_hops",
            about: "2 hops, DISTINCT: what the callees of $p call",
            text: "MATCH (a)-[:CALLS]->(b)-[:CALLS]->(c) WHERE a.name = $p RETURN DISTINCT c.name LIMIT 50",
            candidates: "MATCH (a:Function|Method) WHERE (a)-[:CALLS]->() RETURN a.name, a.path, a.line",
            transform: Transform::Same,
            product_only: false,
        },
        Spec {
            name: "subtypes",
            about: "1 hop: what inherits from or implements a type named $p",
            text: "MATCH (s)-[:INHERITS|IMPLEMENTS]->(b) WHERE b.name = $p RETURN s.qualified_name, s.path LIMIT 50",
            candidates: "MATCH (b) WHERE (b)<-[:INHERITS|IMPLEMENTS]-() RETURN b.name, b.path, b.line",
            transform: Transform::Same,
            product_only: false,
        },
        Spec {
            name: "uncalled_in_dir",
            about: "scan + regex on the path + NOT pattern predicate: callables of one directory nothing calls",
            text: "MATCH (f:Function|Method) WHERE f.path =~ $p AND NOT (f)<-[:CALLS]-() RETURN f.qualified_name LIMIT 50",
            candidates: "MATCH (f:File) RETURN f.path AS v, f.path, 0",
            transform: Transform::DirRegex,
            product_only: false,
        },
        Spec {
            name: "cross_type_calls",
            about: "3 hops with filters: other types whose methods the methods of type $p call",
            text: "MATCH (c:Class|Struct|Interface|Trait|Enum)-[:CONTAINS]->(m:Method)-[:CALLS]->(t:Method)<-[:CONTAINS]-(o) WHERE c.name = $p AND o <> c RETURN DISTINCT o.qualified_name LIMIT 20",
            candidates: "MATCH (c:Class|Struct|Interface|Trait|Enum) WHERE (c)-[:CONTAINS]->(:Method)-[:CALLS]->() RETURN c.name, c.path, c.line",
            transform: Transform::Same,
            product_only: false,
        },
        Spec {
            name: "file_imports",
            about: "1 hop from a file, ordered: what a file imports",
            text: "MATCH (f:File)-[:IMPORTS]->(x) WHERE f.path = $p RETURN x.qualified_name, x.kind ORDER BY x.qualified_name LIMIT 50",
            candidates: "MATCH (f:File) WHERE (f)-[:IMPORTS]->() RETURN f.path AS v, f.path, 0",
            transform: Transform::Same,
            product_only: false,
        },
        Spec {
            name: "complex_in_file",
            about: "*1..2 containment + property filter + ORDER BY: the most complex callables of a file",
            text: "MATCH (f:File)-[:CONTAINS*1..2]->(m:Function|Method) WHERE f.path = $p AND m.complexity > 3 RETURN m.qualified_name, m.complexity ORDER BY m.complexity DESC LIMIT 10",
            candidates: "MATCH (f:File) WHERE (f)-[:CONTAINS]->(:Function|Method) RETURN f.path AS v, f.path, 0",
            transform: Transform::Same,
            product_only: false,
        },
    ]
}

/// Callables with at least one outgoing call: the starts of the variable-length patterns.
const VARLEN_STARTS: &str =
    "MATCH (a:Function|Method) WHERE (a)-[:CALLS]->() RETURN a.qualified_name, a.path, a.line";

fn variable_length() -> Vec<Spec> {
    let mut specs = Vec::new();
    for product_only in [false, true] {
        specs.push(Spec {
            name: if product_only {
                "calls_1_5_distinct_product"
            } else {
                "calls_1_5_distinct"
            },
            about: "*1..5 from one node: the distinct symbols reached (first 200 rows)",
            text: "MATCH (a {qualified_name: $p})-[:CALLS*1..5]->(b) RETURN DISTINCT b.qualified_name",
            candidates: VARLEN_STARTS,
            transform: Transform::Same,
            product_only,
        });
        specs.push(Spec {
            name: if product_only {
                "calls_1_5_count_product"
            } else {
                "calls_1_5_count"
            },
            about: "*1..5 from one node, every path enumerated: count(*), count(DISTINCT b)",
            text: "MATCH (a {qualified_name: $p})-[:CALLS*1..5]->(b) RETURN count(*), count(DISTINCT b)",
            candidates: VARLEN_STARTS,
            transform: Transform::Same,
            product_only,
        });
    }
    specs
}

/// CLI defaults of `sextant query`.
const MAX_ROWS: usize = 200;
const MAX_BYTES: usize = 1 << 20;
const DEADLINE: Duration = Duration::from_secs(30);

pub struct Options<'a> {
    pub root: &'a Path,
    pub samples: usize,
    pub cold_runs: usize,
    pub warm_calls: usize,
    pub warmup: usize,
}

fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}

fn r3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    percentile(&s, 50.0)
}

/// A temporary data home holding a copy of `root`'s index without derived results.
struct ColdHome {
    home: PathBuf,
}

impl ColdHome {
    fn new(root: &Path, data: &DataDir, run: usize) -> Result<ColdHome> {
        let home = std::env::temp_dir().join(format!(
            "sextant-bench-analytics-{}-{run}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&home);
        let dir = repo_data_dir(&home, root);
        std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
        for name in ["index.db", "index.db-wal", "root.txt"] {
            let from = data.dir.join(name);
            if from.is_file() {
                std::fs::copy(&from, dir.join(name))
                    .with_context(|| format!("copying {}", from.display()))?;
            }
        }
        Ok(ColdHome { home })
    }
}

impl Drop for ColdHome {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.home);
    }
}

/// One cold run's measurements.
#[derive(Default)]
struct ColdRun {
    open_ms: f64,
    graph_ms: f64,
    pagerank: Phase,
    communities: Phase,
    bridges: Phase,
}

/// A call timed cold then warm.
#[derive(Default)]
struct Phase {
    cold_ms: f64,
    cold_compute_ms: f64,
    cold_cached: bool,
    warm_ms: Vec<f64>,
    warm_cached: bool,
    info: Value,
}

fn cold_run(root: &Path, data: &DataDir, run: usize, warm_calls: usize) -> Result<ColdRun> {
    let cold = ColdHome::new(root, data, run)?;
    let mut out = ColdRun::default();
    let t = Instant::now();
    let repo = Repo::open_in(&cold.home, root)?;
    out.open_ms = ms(t);
    let t = Instant::now();
    let _graph = repo.graph()?;
    out.graph_ms = ms(t);

    let t = Instant::now();
    let c = repo.central(&[], 20)?;
    out.pagerank.cold_ms = ms(t);
    out.pagerank.cold_compute_ms = c.compute_ms;
    out.pagerank.cold_cached = c.cached;
    out.pagerank.info = json!({
        "nodes_ranked": c.nodes_ranked,
        "iterations": c.iterations,
        "converged": c.converged,
        "top": c.results.first().map(|r| r.node.qualified_name.clone()),
    });
    out.pagerank.warm_cached = true;
    for _ in 0..warm_calls {
        let t = Instant::now();
        let c = repo.central(&[], 20)?;
        out.pagerank.warm_ms.push(ms(t));
        out.pagerank.warm_cached &= c.cached;
    }

    let t = Instant::now();
    let m = repo.communities(3, 20)?;
    out.communities.cold_ms = ms(t);
    out.communities.cold_compute_ms = m.compute_ms;
    out.communities.cold_cached = m.cached;
    out.communities.info = json!({
        "count": m.count,
        "eligible_min_size_3": m.eligible,
        "modularity": r3(m.modularity),
        "levels": m.levels,
        "largest": m.communities.first().map(|c| json!({"label": c.label, "size": c.size})),
    });
    out.communities.warm_cached = true;
    for _ in 0..warm_calls {
        let t = Instant::now();
        let m = repo.communities(3, 20)?;
        out.communities.warm_ms.push(ms(t));
        out.communities.warm_cached &= m.cached;
    }

    let t = Instant::now();
    let b = repo.bridges(20)?;
    out.bridges.cold_ms = ms(t);
    out.bridges.cold_compute_ms = b.compute_ms;
    out.bridges.cold_cached = b.cached;
    out.bridges.info = json!({
        "nodes": b.nodes,
        "sources": b.sources,
        "exact": b.exact,
        "top": b.results.first().map(|r| r.node.qualified_name.clone()),
    });
    out.bridges.warm_cached = true;
    for _ in 0..warm_calls {
        let t = Instant::now();
        let b = repo.bridges(20)?;
        out.bridges.warm_ms.push(ms(t));
        out.bridges.warm_cached &= b.cached;
    }
    Ok(out)
}

fn phase_summary(runs: &[ColdRun], pick: impl Fn(&ColdRun) -> &Phase, what: &str) -> Value {
    let cold: Vec<f64> = runs.iter().map(|r| pick(r).cold_ms).collect();
    let compute: Vec<f64> = runs.iter().map(|r| pick(r).cold_compute_ms).collect();
    let warm: Vec<f64> = runs
        .iter()
        .flat_map(|r| pick(r).warm_ms.iter().copied())
        .collect();
    json!({
        "call": what,
        "cold_ms_median": r3(median(&cold)),
        "cold_ms_runs": cold.iter().map(|x| r3(*x)).collect::<Vec<_>>(),
        "cold_compute_ms_median": r3(median(&compute)),
        "cold_was_uncached": runs.iter().all(|r| !pick(r).cold_cached),
        "warm_ms_median": r3(median(&warm)),
        "warm_ms_max": r3(warm.iter().copied().fold(0.0, f64::max)),
        "warm_calls": warm.len(),
        "warm_was_cached": runs.iter().all(|r| pick(r).warm_cached),
        "result": runs.last().map(|r| pick(r).info.clone()),
    })
}

/// A regex matching the files directly in `path`'s directory (whole-string match, as `=~`).
fn dir_regex(path: &str) -> String {
    match path.rsplit_once('/') {
        Some((dir, _)) if !dir.is_empty() => format!("{}/[^/]+", regex::escape(dir)),
        _ => "[^/]+".to_string(),
    }
}

/// Deterministic sample of `n` parameter values for `spec`: every candidate row as
/// (path, line, value), sorted, taken at equal strides.
fn sample_params(repo: &Repo, spec: &Spec, n: usize) -> Result<(Vec<String>, usize)> {
    let out = repo
        .query_with_params(
            spec.candidates,
            &Map::new(),
            100_000,
            usize::MAX / 2,
            Some(Duration::from_secs(120)),
        )
        .with_context(|| format!("candidates of {}", spec.name))?;
    let mut rows: Vec<(String, i64, String)> = out
        .rows
        .iter()
        .filter_map(|r| {
            let value = r.first()?.as_str()?.to_string();
            let path = r.get(1)?.as_str().unwrap_or("").to_string();
            let line = r.get(2)?.as_i64().unwrap_or(0);
            Some((path, line, value))
        })
        .filter(|(path, _, _)| !spec.product_only || !is_test_path(path))
        .collect();
    rows.sort();
    rows.dedup();
    let total = rows.len();
    if total == 0 || n == 0 {
        return Ok((Vec::new(), total));
    }
    let take = n.min(total);
    let params = (0..take)
        .map(|i| {
            let (_, _, value) = &rows[i * total / take];
            match spec.transform {
                Transform::Same => value.clone(),
                Transform::DirRegex => dir_regex(value),
            }
        })
        .collect();
    Ok((params, total))
}

fn run_specs(repo: &Repo, specs: &[Spec], samples: usize, warmup: usize) -> Result<Vec<Value>> {
    let mut out = Vec::new();
    for spec in specs {
        let (params, candidates) = sample_params(repo, spec, samples)?;
        if params.is_empty() {
            out.push(json!({
                "name": spec.name,
                "about": spec.about,
                "query": spec.text,
                "candidates": 0,
                "skipped": "no candidate parameter in this graph",
            }));
            continue;
        }
        let args = |p: &str| {
            let mut m = Map::new();
            m.insert("p".into(), json!(p));
            m
        };
        for p in params.iter().take(warmup) {
            let _ =
                repo.query_with_params(spec.text, &args(p), MAX_ROWS, MAX_BYTES, Some(DEADLINE));
        }
        let mut timings = Timings::default();
        let mut rows = Vec::with_capacity(params.len());
        let mut expansions = Vec::with_capacity(params.len());
        let mut truncated = 0usize;
        let mut errors: Vec<String> = Vec::new();
        for p in &params {
            let a = args(p);
            let t = Instant::now();
            let r = repo.query_with_params(spec.text, &a, MAX_ROWS, MAX_BYTES, Some(DEADLINE));
            let took = ms(t);
            timings.push(p, took);
            match r {
                Ok(o) => {
                    rows.push(o.row_count as f64);
                    expansions.push(o.expansions as f64);
                    if o.truncated || o.output_truncated.is_some() {
                        truncated += 1;
                    }
                }
                Err(e) => errors.push(format!("{p}: {e}")),
            }
        }
        let mean = |v: &[f64]| {
            if v.is_empty() {
                0.0
            } else {
                v.iter().sum::<f64>() / v.len() as f64
            }
        };
        let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
        out.push(json!({
            "name": spec.name,
            "about": spec.about,
            "query": spec.text,
            "candidates": candidates,
            "candidates_product_code_only": spec.product_only,
            "samples": params.len(),
            "rows_mean": r3(mean(&rows)),
            "rows_max": max(&rows),
            "expansions_mean": r3(mean(&expansions)),
            "expansions_max": max(&expansions),
            "truncated": truncated,
            "errors": errors.len(),
            "error_examples": errors.iter().take(3).collect::<Vec<_>>(),
            "timings": timings.summary(),
        }));
    }
    Ok(out)
}

/// Largest p95 over a group of query reports.
fn worst_p95(group: &[Value]) -> f64 {
    group
        .iter()
        .filter_map(|q| q["timings"]["p95_ms"].as_f64())
        .fold(0.0, f64::max)
}

pub fn run(opts: &Options<'_>) -> Result<Value> {
    let root = opts
        .root
        .canonicalize()
        .with_context(|| format!("repository path {}", opts.root.display()))?;
    let data = DataDir::for_root(&root);
    anyhow::ensure!(
        data.exists(),
        "{} is not indexed under this SEXTANT_HOME (run `sextant index {}` first)",
        root.display(),
        root.display()
    );

    let mut runs = Vec::new();
    for run in 0..opts.cold_runs.max(1) {
        runs.push(cold_run(&root, &data, run, opts.warm_calls.max(1))?);
    }

    // Cypher over the index in place (the graph is loaded once more, for this database).
    let repo = Repo::open(&root)?;
    let t = Instant::now();
    let graph = repo.graph()?;
    let graph_ms = ms(t);
    let (nodes, edges) = (graph.len(), graph.edge_count());
    drop(graph);
    let typical = run_specs(&repo, &typical(), opts.samples, opts.warmup)?;
    let varlen = run_specs(&repo, &variable_length(), opts.samples, opts.warmup)?;

    let open: Vec<f64> = runs.iter().map(|r| r.open_ms).collect();
    let loads: Vec<f64> = runs.iter().map(|r| r.graph_ms).collect();
    let pagerank = phase_summary(&runs, |r| &r.pagerank, "Repo::central(all kinds, 20)");
    let communities = phase_summary(&runs, |r| &r.communities, "Repo::communities(3, 20)");
    let bridges = phase_summary(&runs, |r| &r.bridges, "Repo::bridges(20)");
    let typical_p95 = worst_p95(&typical);
    let varlen_p95 = worst_p95(&varlen);
    let pr_cold = pagerank["cold_ms_median"].as_f64().unwrap_or(f64::NAN);
    let cm_cold = communities["cold_ms_median"].as_f64().unwrap_or(f64::NAN);
    let files = repo.schema().ok().and_then(|s| {
        s.node_labels
            .iter()
            .find(|l| l.kind == "file")
            .map(|l| l.count)
    });

    Ok(json!({
        "repo": root.display().to_string(),
        "generation": repo.generation(),
        "files": files,
        "graph": {"nodes": nodes, "merged_edges": edges},
        "cold_runs": runs.len(),
        "method": "cold: a copy of index.db in a fresh data home (no derived.db; graph loaded for a new database path); warm: the same call again (derived.db); Cypher via Repo::query_with_params with the CLI defaults (200 rows, 1 MiB, 30 s)",
        "open_ms_median": r3(median(&open)),
        "graph_load_ms_median": r3(median(&loads)),
        "graph_load_ms_runs": loads.iter().map(|x| r3(*x)).collect::<Vec<_>>(),
        "graph_load_ms_in_place": r3(graph_ms),
        "pagerank": pagerank,
        "communities": communities,
        "bridges": bridges,
        "cypher_typical": typical,
        "cypher_variable_length": varlen,
        "targets": {
            "typical_cypher_p95_ms": {"target": 10.0, "worst": r3(typical_p95), "met": typical_p95 <= 10.0},
            "variable_length_1_5_p95_ms": {"target": 20.0, "worst": r3(varlen_p95), "met": varlen_p95 <= 20.0},
            "pagerank_cold_ms": {"target": 1000.0, "median": pr_cold, "met": pr_cold <= 1000.0},
            "communities_cold_ms": {"target": 1000.0, "median": cm_cold, "met": cm_cold <= 1000.0},
        },
        "machine": crate::machine::info(),
        "commit": crate::machine::git_commit(),
        "worktree_dirty": crate::machine::git_dirty(),
    }))
}

pub fn write_human(out: &mut impl std::io::Write, r: &Value) -> Result<()> {
    writeln!(
        out,
        "{}: {} files, graph {} nodes / {} merged edges; {} cold runs",
        r["repo"].as_str().unwrap_or("?"),
        r["files"],
        r["graph"]["nodes"],
        r["graph"]["merged_edges"],
        r["cold_runs"]
    )?;
    writeln!(
        out,
        "  graph load (cold) median {} ms (runs {}), open {} ms",
        r["graph_load_ms_median"], r["graph_load_ms_runs"], r["open_ms_median"]
    )?;
    for (label, key) in [
        ("PageRank (central)", "pagerank"),
        ("communities", "communities"),
        ("bridges", "bridges"),
    ] {
        let p = &r[key];
        writeln!(
            out,
            "  {label:<20} cold {:>9.1} ms (compute {:>9.1})  warm {:>7.2} ms",
            p["cold_ms_median"].as_f64().unwrap_or(f64::NAN),
            p["cold_compute_ms_median"].as_f64().unwrap_or(f64::NAN),
            p["warm_ms_median"].as_f64().unwrap_or(f64::NAN),
        )?;
    }
    for key in ["cypher_typical", "cypher_variable_length"] {
        for q in r[key].as_array().into_iter().flatten() {
            let name = q["name"].as_str().unwrap_or("?");
            if let Some(why) = q["skipped"].as_str() {
                writeln!(out, "  {name:<20} skipped: {why}")?;
                continue;
            }
            let t = &q["timings"];
            writeln!(
                out,
                "  {name:<20} p50 {:>8.3} ms  p95 {:>8.3} ms  max {:>8.3} ms  ({} samples, {} rows mean, {} errors)",
                t["p50_ms"].as_f64().unwrap_or(f64::NAN),
                t["p95_ms"].as_f64().unwrap_or(f64::NAN),
                t["max_ms"].as_f64().unwrap_or(f64::NAN),
                q["samples"],
                q["rows_mean"],
                q["errors"],
            )?;
        }
    }
    let m = &r["machine"];
    writeln!(
        out,
        "  machine: {} cpus, {}, load {}; commit {}{}",
        m["nproc"],
        m["cpu_model"].as_str().unwrap_or("?"),
        m["loadavg_1_5_15"],
        r["commit"].as_str().unwrap_or("unknown"),
        if r["worktree_dirty"] == true {
            " (with uncommitted changes)"
        } else {
            ""
        }
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn whole(re: &str, text: &str) -> bool {
        regex::Regex::new(&format!("^(?:{re})$")).is_ok_and(|r| r.is_match(text))
    }

    #[test]
    fn dir_regex_matches_the_directory_only() {
        let re = dir_regex("django/db/models/base.py");
        assert_eq!(re, "django/db/models/[^/]+");
        assert!(whole(&re, "django/db/models/query.py"));
        assert!(!whole(&re, "django/db/models/fields/related.py"));
        assert!(!whole(&re, "django/db/base.py"));
        let re = dir_regex("src/a+b (1)/x.rs");
        assert!(whole(&re, "src/a+b (1)/y.rs"));
        assert!(!whole(&re, "src/aab (1)/y.rs"));
        assert_eq!(dir_regex("setup.py"), "[^/]+");
        assert!(whole(&dir_regex("setup.py"), "manage.py"));
    }
}
